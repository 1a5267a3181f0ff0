"""A quiet, honest console: no TensorFlow start-up noise, no spurious Keras warnings, plain progress
when the output is not a terminal, and a finished run re-run with changed settings is refused."""

import io
import os
import pathlib
import re
import warnings

import pytest

from tests.conftest import run_tool
from tests.reliability.conftest import FIXTURES, assert_api_error, assert_one_line_error, run_subprocess

NOISE = re.compile(r"I0000|E0000|W0000|absl::InitializeLog|cuInit|cuda drivers|cpu_feature_guard")


def test_a_tool_in_a_fresh_process_prints_only_its_error(tmp_path):
    """TensorFlow imports and runs a tf.data pipeline (CUDA is probed), then the error: one line."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog .\n" * 20, encoding="utf-8")
    result = run_subprocess("build_vocab", [corpus, "--output", tmp_path / "v.txt", "--vocab_size", "30"])
    assert result.returncode == 2, result.stderr
    assert not NOISE.search(result.stderr + result.stdout), result.stderr
    assert_one_line_error(result.stderr, "--vocab_size", "30")


def test_progress_is_plain_when_not_a_terminal():
    from keras_bert.cli import progress_verbosity

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert progress_verbosity(stream=io.StringIO()) == 2  # one plain line per epoch
    assert progress_verbosity(stream=Terminal()) == 1  # the live bar
    assert progress_verbosity(quiet=True, stream=Terminal()) == 0


@pytest.fixture
def pretrain_argv(tmp_path, corpus):
    import keras_bert

    config = tmp_path / "bert_config.json"
    keras_bert.BertConfig(vocab_size=30522, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                          max_position_embeddings=64).to_json(str(config))
    return ["--files", corpus, "--config", config, "--seq_length", "16",
            "--batch_size", "2", "--train_steps", "2", "--steps_per_epoch", "1",
            "--checkpoint_every_epochs", "1", "--jit_compile", "off", "--strategy", "default",
            "--no_demo", "--no_export", "--output_dir", tmp_path / "run"]


@pytest.mark.slow
def test_pretrain_console_and_a_changed_rerun(pretrain_argv):
    result = run_tool("pretrain", *pretrain_argv)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "\r" not in out and "\x1b[" not in out and "\b" not in out, out[-2000:]
    assert "Trained steps 0 -> 2" in out
    assert "shuffle=True" not in result.stderr, result.stderr[-3000:]  # no spurious Keras warning

    finished = _files(pretrain_argv[-1])
    result = run_tool("pretrain", *pretrain_argv, "--learning_rate", "1e-3")
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "finished run", "learning_rate 0.002 -> 0.001", "start fresh")
    assert "Train loss" not in result.stdout  # the old run's metrics are not reported as this one's
    # The refusal touched nothing: the folder is the finished run, byte for byte, so the same command resumes it and
    # trains nothing, as tests/integration/test_pretrain_tool.py shows ("Trained steps 6 -> 6."); a third run here
    # re-proved that.
    assert _files(pretrain_argv[-1]) == finished


def _files(folder):
    """Every file under `folder`: relative path -> bytes."""
    return {os.path.relpath(os.path.join(d, name), folder): pathlib.Path(d, name).read_bytes()
            for d, _, names in os.walk(folder) for name in names}


def test_squad_trains_without_gradient_warnings_and_a_changed_rerun(tiny_checkpoint, tmp_path):
    """The span labeler does not use the pooler; it is frozen, so Keras has no missing gradients to report."""
    from keras_bert import finetune_task
    from keras_bert.training import RunConfig

    def finetune(**changes):
        options = dict(seq_length=32, doc_stride=16, batch_size=4, epochs=1,
                       run=RunConfig(strategy="default", jit_compile="off", verbose=0, output_dir=str(tmp_path)))
        return finetune_task("squad", tiny_checkpoint, os.path.join(FIXTURES, "squad_v1.json"),
                             **dict(options, **changes))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        finetune()
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "Gradients do not exist" in m or "shuffle=True" in m], messages
    # The finished run, asked again with another learning rate, is not evaluated as if it were new.
    assert_api_error(lambda: finetune(learning_rate=1e-4), ValueError, "finished run",
                     "learning_rate 3e-05 -> 0.0001", "start fresh")
