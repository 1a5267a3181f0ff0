"""The run loop on JAX (keras.distribution): on 2 virtual devices data_parallel and model_parallel give the
one-device run's per-step losses and final weights (pretraining and fine-tuning, gradient accumulation too);
a pretraining run killed with SIGKILL resumes to the uninterrupted run's weights, and its final/ loads on
TensorFlow; a fine-tuning run cut off and run again ends with them too; tools/pretrain.py as 2 processes (1
device each, keras.distribution.initialize) gives the per-step losses of its run on 2 devices of one process;
the layout rules shard every family's kernels; a strategy of the other backend is refused in one line.

JAX reads XLA_FLAGS=--xla_force_host_platform_device_count=2 only before it starts, so the JAX runs are
fresh processes (`tests.training.jax_runs`, `tests.integration.pretrain_job`).
"""

import csv
import json
import os
import re
import socket
import subprocess
import sys

import numpy as np
import pytest

import keras_bert
from keras_bert.training import get_strategy
from keras_bert.training.jax_strategy import LAYOUT_RULES
from tests.test_backends import FAST_XLA  # these tiny runs mostly compile: XLA at -O0
from tests.training.jax_runs import PRETRAINING

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JAX_ENV = dict(os.environ, KERAS_BACKEND="jax", XLA_FLAGS=f"--xla_force_host_platform_device_count=2 {FAST_XLA}",
               PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")


def _start(*args):
    return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=JAX_ENV, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _output(process, status=0):
    output, _ = process.communicate(timeout=900)
    assert process.returncode == status, output[-4000:]
    return output


def test_a_strategy_of_the_other_backend_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^--strategy data_parallel is keras.distribution's \(KERAS_BACKEND=jax\); "
                                         r"on tensorflow use --strategy mirrored"):
        get_strategy("data_parallel")


def test_layout_rules_shard_the_kernels_of_every_family():
    from keras_bert.models.modernbert import ModernBertConfig

    sharded = {}
    for config in (keras_bert.BertConfig(vocab_size=64, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32),
                   ModernBertConfig(vocab_size=64, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                                    pad_token_id=0)):
        for variable in keras_bert.build_pretrainer(config).variables:
            rules = [axes for pattern, axes in LAYOUT_RULES if re.fullmatch(pattern, variable.path)]
            assert len(rules) <= 1, variable.path  # keras.distribution.LayoutMap refuses two matches
            if rules:
                assert len(rules[0]) == len(variable.shape), variable.path
                sharded[variable.path.split("/", 1)[-1]] = rules[0]
    assert sharded == {
        "word_embeddings/embeddings": (None, "model"), "tok_embeddings/embeddings": (None, "model"),
        **{f"{name}/kernel": (None, "model") for name in ("query", "key", "value", "intermediate", "Wqkv", "Wi")},
        **{f"{name}/bias": ("model",) for name in ("query", "key", "value", "intermediate")},
        **{f"{name}/kernel": ("model", None) for name in ("attention_output", "output", "attn_Wo", "mlp_Wo")}}


def _processes(tool_args, folders):
    """`tools/pretrain.py` as 2 JAX processes on localhost, one CPU device each, joined by keras.distribution's
    environment (docs/scale.md); process `i` writes to `folders[i]`."""
    with socket.socket() as free:
        free.bind(("localhost", 0))
        port = free.getsockname()[1]
    env = dict(JAX_ENV, XLA_FLAGS=FAST_XLA)  # one device each
    env.update(KERAS_DISTRIBUTION_JOB_ADDRESSES=f"localhost:{port}", KERAS_DISTRIBUTION_NUM_PROCESSES="2")
    return [subprocess.Popen([sys.executable, os.path.join("tools", "pretrain.py"), *tool_args, "--output_dir",
                              str(folder)], cwd=ROOT, env=dict(env, KERAS_DISTRIBUTION_PROCESS_ID=str(i)), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for i, folder in enumerate(folders)]


def _train_losses(folder):
    with open(folder / "training_log.csv") as f:
        return [float(row["loss"]) for row in csv.DictReader(f) if row["kind"] == "train"]


@pytest.mark.slow
def test_two_devices_match_one_a_killed_run_resumes_and_the_tool_runs(tmp_path, shakespeare_files):
    """One test, its JAX processes two at a time: the equality job beside the killed, resumed and tool runs.
    The tool's run on 2 devices of one process is the reference of the same run as 2 processes."""
    equality = _start("tests.training.jax_runs", str(tmp_path))
    job = json.dumps(dict(PRETRAINING, strategy="data_parallel"))
    _output(_start("tests.integration.pretrain_job", str(tmp_path / "resumed"),
                   json.dumps(dict(json.loads(job), sigkill_at=4))), status=-9)  # after the step-3 checkpoint
    assert "Resuming pretraining from step 3 of 6" in _output(
        _start("tests.integration.pretrain_job", str(tmp_path / "resumed"), job))
    (tmp_path / "tiny.json").write_text(json.dumps(dict(  # a Hugging Face config, dropout off
        vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=32, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)))
    tool_args = ["--files", shakespeare_files[0], "--next_sentence", "off", "--config", str(tmp_path / "tiny.json"),
                 "--seq_length", "32", "--batch_size", "8", "--strategy", "data_parallel", "--train_steps", "3",
                 "--steps_per_epoch", "1", "--eval_steps", "1", "--no_demo"]
    # The same run as 2 processes (keras.distribution.initialize; gloo collectives on CPU), beside the tool's.
    folders = [tmp_path / "process0", tmp_path / "process1"]
    processes = _processes(tool_args + ["--no_export"], folders)
    tool = subprocess.run([sys.executable, os.path.join("tools", "pretrain.py"), *tool_args, "--output_dir",
                           str(tmp_path / "tool")], cwd=ROOT, env=JAX_ENV, capture_output=True, text=True,
                          timeout=900)  # (accumulation: in jax_runs)
    assert tool.returncode == 0, tool.stderr[-4000:]
    assert "Trained steps 0 -> 3." in tool.stdout and "MLM accuracy" in tool.stdout
    assert "Not exported: a SavedModel needs the TensorFlow backend; export final/ there: " \
           "KERAS_BACKEND=tensorflow python tools/export.py" in tool.stdout
    for name in ("final/pretrainer.weights.h5", "curves.png", "training_log.csv", "checkpoints/ckpt-3.npz"):
        assert (tmp_path / "tool" / name).exists(), name
    assert any(n.startswith("events.") for n in os.listdir(tmp_path / "tool" / "logs" / "train"))  # TensorBoard
    assert keras_bert.load_checkpoint(str(tmp_path / "tool" / "final"), model="pretrainer").packed is False

    # The 2 processes: the same per-step losses (measured: equal to the last bit); only process 0 writes.
    outputs = [_output(process) for process in processes]
    assert "Process 0 writes the run folder (this process writes none)." in outputs[1], outputs[1][-2000:]
    assert os.listdir(folders[1]) == []
    reference = _train_losses(tmp_path / "tool")
    assert len(reference) == 3 and np.allclose(_train_losses(folders[0]), reference, rtol=0, atol=1e-5)
    assert (folders[0] / "final" / "pretrainer.weights.h5").exists()

    print(_output(equality))
    with open(tmp_path / "equality.json") as f:
        table = json.load(f)
    assert table.pop("refusals") == [
        "--strategy mirrored is tf.distribute's (KERAS_BACKEND=tensorflow); on JAX use --strategy data_parallel "
        "(or model_parallel, auto), or set KERAS_BACKEND=tensorflow.",
        "--on_nonfinite skip is TensorFlow's (its update step is tf.cond); on JAX use --on_nonfinite stop (the "
        "default), or set KERAS_BACKEND=tensorflow."]
    # The data_parallel fine-tuning run was cut off after step 5 and resumed from step 4 (measured: its weights
    # equal the uninterrupted run's; 9.6e-4 apart before compat.build_for_fit).
    starts = {name: row.pop("resumed_from") for name, row in table.items()}
    assert {name: step for name, step in starts.items() if step} == {"fine-tuning data_parallel": 4}
    assert len(table) == 7 and all(row["steps"] == (6 if name.startswith("pre") else 8) for name, row in table.items())
    for name, row in table.items():  # measured: losses within 4.8e-7 (accumulation), weights within 1.2e-7
        assert row["loss"] <= 1e-5 and row["weights"] <= 1e-6, (name, row)
    # final/ of the JAX run loads on TensorFlow (this process) with the uninterrupted run's weights.
    resumed = keras_bert.load_checkpoint(str(tmp_path / "resumed" / "final"), model="pretrainer")
    with np.load(tmp_path / "pretraining_data_parallel.npz") as uninterrupted:
        reference = [uninterrupted[f"arr_{i}"] for i in range(len(uninterrupted.files))]
    assert len(resumed.weights) == len(reference)
    for weight, value in zip(resumed.weights, reference):
        np.testing.assert_array_equal(np.asarray(weight), value, err_msg=weight.path)
