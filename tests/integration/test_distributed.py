"""The same pretraining run on one device, MirroredStrategy over 2 logical CPUs and
MultiWorkerMirroredStrategy with 2 worker processes on localhost gives the same loss curve,
with and without gradient accumulation (2 micro-batches per replica's batch of 4).

Global batch 8 everywhere; the distributed runs use `input_mode="split"`, so each global
batch is the single-device run's batch cut in two (one half per replica). Dropout is off.

Why the sequences are full length with 3 predictions each: like Google's BERT, each replica
averages the MLM loss over *its own* masked positions, and the replicas' gradients are then
averaged. That equals the single-device mean over all masked positions only when every
replica (and each micro-batch) has the same number of masked tokens. At seq_length 64, short_seq_prob 0 and
max_predictions_per_seq 3 the cap is always reached (checked below on the batches used).

Tolerance: the first steps agree to float round-off (1e-6 relative). Later the curves drift
apart slowly (about 1e-3 relative after 20 steps): the replicas sum their gradients in a
different order than one device does, and Adam divides each update by the gradient's own
magnitude, which amplifies round-off in small gradients. A wrong data split or loss scale
shows up at once instead (batches differ by several percent).
"""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS = 20


def _options(minilm_dir, **overrides):
    options = {"input": "shakespeare", "vocab": os.path.join(minilm_dir, "vocab.txt"),
               "files": 4, "seq_length": 64, "predictions": 3, "short_seq_prob": 0.0,
               "hidden": 32, "layers": 1, "batch": 8, "steps": STEPS, "steps_per_epoch": 10,
               "lr": 1e-3, "dropout": 0.0, "jit_compile": "off", "input_mode": "split"}
    options.update(overrides)
    return options


def _start(output_dir, options, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.pretrain_job", str(output_dir), json.dumps(options)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(process):
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output[-4000:]
    return output


def _curves(output_dir):
    curves = []
    for name in sorted(os.listdir(output_dir)):
        if name.startswith("summary_"):
            with open(os.path.join(output_dir, name)) as f:
                curves.append(np.array(json.load(f)["losses"]))
    return curves


def _free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


@pytest.fixture(scope="module")
def curves(minilm_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("distributed")
    single = _start(root / "single", _options(minilm_dir, strategy="default"))
    _finish(single)
    mirrored = _start(root / "mirrored", _options(minilm_dir, strategy="mirrored", logical_cpus=2))
    _finish(mirrored)
    accumulated = _start(root / "mirrored_accumulated",
                         _options(minilm_dir, strategy="mirrored", logical_cpus=2, accumulation=2))
    _finish(accumulated)
    ports = _free_ports(2)
    workers = []
    for index in range(2):
        tf_config = {"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                     "task": {"type": "worker", "index": index}}
        workers.append(_start(root / "multi_worker",
                              _options(minilm_dir, strategy="multi_worker", accumulation=2),
                              env={"TF_CONFIG": json.dumps(tf_config)}))
    for worker in workers:
        _finish(worker)
    return {name: _curves(root / name)
            for name in ("single", "mirrored", "mirrored_accumulated", "multi_worker")}


@pytest.mark.slow
def test_every_sequence_has_the_same_number_of_masked_tokens(minilm_dir, shakespeare_files):
    from keras_bert import Tokenizer
    from keras_bert.data.pretraining import pretraining_dataset

    options = _options(minilm_dir)
    dataset = pretraining_dataset(shakespeare_files[:options["files"]],
                                  Tokenizer(options["vocab"]), seq_length=64,
                                  max_predictions_per_seq=3, short_seq_prob=0.0, batch_size=8, seed=0)
    for _, labels in dataset.take(STEPS + 2):
        np.testing.assert_array_equal(labels["masked_lm_weights"].numpy().sum(1), 3.0)


@pytest.mark.slow
def test_mirrored_and_multi_worker_match_one_device(curves):
    """The multi-worker run accumulates 2 micro-batches, as does "mirrored_accumulated"."""
    (single,) = curves["single"]
    assert single.shape == (STEPS, 2) and np.array_equal(single[:, 0], np.arange(1, STEPS + 1))
    assert len(curves["mirrored"]) == 1 and len(curves["multi_worker"]) == 2  # one log per worker
    for name in ("mirrored", "mirrored_accumulated", "multi_worker"):
        for curve in curves[name]:
            np.testing.assert_array_equal(curve[:, 0], single[:, 0])
            np.testing.assert_allclose(curve[:2, 1], single[:2, 1], rtol=1e-6, err_msg=name)
            np.testing.assert_allclose(curve[:, 1], single[:, 1], rtol=3e-3, err_msg=name)
    # Both distributed runs compute the same sums in the same order.
    np.testing.assert_allclose(curves["multi_worker"][0][:, 1], curves["mirrored_accumulated"][0][:, 1],
                               rtol=1e-6)
    np.testing.assert_array_equal(curves["multi_worker"][0], curves["multi_worker"][1])
    assert single[-1, 1] < single[0, 1]  # and it trains


@pytest.mark.slow
def test_a_batch_that_does_not_split_across_replicas_is_refused(minilm_dir, tmp_path):
    process = _start(tmp_path, _options(minilm_dir, strategy="mirrored", logical_cpus=2, batch=7))
    output, _ = process.communicate(timeout=600)
    assert process.returncode != 0
    assert "global_batch_size=7 cannot be split evenly across 2 replicas" in output


@pytest.mark.slow
def test_sharded_input_under_mirrored_trains_and_resumes(minilm_dir, tmp_path):
    """`input_mode="shard"`: one pipeline per worker via distribute_datasets_from_function."""
    options = _options(minilm_dir, strategy="mirrored", logical_cpus=2, input_mode="shard",
                       steps=10, stop_after=5)
    _finish(_start(tmp_path, options))
    options.pop("stop_after")
    output = _finish(_start(tmp_path, options))
    assert 'DONE {"start_step": 5, "step": 10}' in output
    (curve,) = [c for c in _curves(tmp_path) if len(c) == 10]  # the resumed run's whole log
    np.testing.assert_array_equal(curve[:, 0], np.arange(1, 11))
    assert np.all(np.isfinite(curve[:, 1]))
