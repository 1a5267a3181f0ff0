"""A JAX run where TensorFlow is not installed (`import tensorflow` / `tensorflow_text` fail, as on the lent GPU
machines): `python tools/pretrain.py --shards` trains on 2 virtual devices with gradient accumulation, and its
training log and final/ (loaded here, on TensorFlow) equal those of the same run with TensorFlow present; raw text
and TensorBoard are refused or skipped in one line. (Resume after SIGKILL: tests/training/test_jax_strategy.py, with
TensorFlow present; the shards' position on resume, `ShardBatches.skip`: tests/data/test_shard_reader.py.)"""

import os
import subprocess
import sys
import time

import numpy as np

import keras_bert
from tests.conftest import ROOT
from tests.test_backends import FAST_XLA  # the runs mostly compile: XLA at -O0

# sitecustomize runs at start-up: both imports then fail with ModuleNotFoundError, as where they are not installed.
BLOCKER = "import sys\n\nfor _name in ('tensorflow', 'tensorflow_text'):\n    sys.modules[_name] = None\n"


def _pretrain(tmp_path, output_dir, *flags, blocked=True):
    path = [str(tmp_path / "no_tensorflow")] if blocked else []
    env = dict(os.environ, KERAS_BACKEND="jax", XLA_FLAGS=f"--xla_force_host_platform_device_count=2 {FAST_XLA}",
               TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(path + [ROOT]))
    return subprocess.Popen([sys.executable, os.path.join("tools", "pretrain.py"), *flags, "--output_dir",
                             str(tmp_path / output_dir)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finished(process, status=0):
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == status, (stdout + stderr)[-4000:]
    return stdout, stderr


def test_without_tensorflow_a_jax_run_trains_from_shards_as_with_it_and_tensorflow_loads_it(shards, tmp_path):
    (tmp_path / "no_tensorflow").mkdir()
    (tmp_path / "no_tensorflow" / "sitecustomize.py").write_text(BLOCKER)
    _, error = _finished(_pretrain(tmp_path, "demo"), status=2)  # the demo corpus is raw text
    assert error == ("pretrain.py: error: the demo corpus: raw text is tokenized by tensorflow-text, which needs "
                     "TensorFlow (not installed): write shards where it is (python tools/write_shards.py --files ... "
                     "--output_dir SHARDS) and pass --shards SHARDS, or pip install tensorflow-cpu tensorflow-text.\n")
    flags = ("--shards", shards[0], "--preset", "bert_tiny_uncased", "--strategy", "data_parallel", "--batch_size", "4",
             "--gradient_accumulation_steps", "2", "--train_steps", "4", "--steps_per_epoch", "2",
             "--max_predictions_per_seq", "5", "--no_demo", "--quiet")
    reference = _pretrain(tmp_path, "with_tensorflow", *flags, blocked=False)  # the two side by side
    started = time.perf_counter()
    output, error = _finished(_pretrain(tmp_path, "run", *flags))
    seconds = time.perf_counter() - started
    assert "Trained steps 0 -> 4." in output and "curves: " in output and "TensorBoard: " not in output, output
    assert "No TensorBoard logs: TensorBoard needs TensorFlow (pip install tensorflow-cpu); the curves are in " \
           f"{tmp_path / 'run' / 'training_log.csv'} and curves.png." in output
    assert "Traceback" not in error, error[-3000:]
    for name in ("final/pretrainer.weights.h5", "final/text_config.json", "final/vocab.txt", "curves.png",
                 "training_log.csv", "run_config.json", "bert_config.json", "checkpoints/ckpt-4.npz"):
        assert (tmp_path / "run" / name).exists(), name
    assert not (tmp_path / "run" / "logs").exists()
    _finished(reference)
    assert (tmp_path / "with_tensorflow" / "logs" / "train").is_dir()  # TensorBoard, where TensorFlow is
    with open(tmp_path / "run" / "training_log.csv") as f, open(tmp_path / "with_tensorflow" / "training_log.csv") as g:
        assert f.read() == g.read()  # the per-step losses and metrics
    # final/ loads on TensorFlow (this process) with the weights of the run that had TensorFlow.
    trained, expected = (keras_bert.load_checkpoint(str(tmp_path / name / "final"), model="pretrainer")
                         for name in ("run", "with_tensorflow"))
    assert len(trained.weights) == len(expected.weights) > 0
    difference = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                     for a, b in zip(trained.weights, expected.weights))
    print(f"without TensorFlow: max weight difference {difference:.3g}; the run's process {seconds:.1f} s")
    assert difference == 0.0
