"""Kill pretraining with SIGKILL mid-run, restart, and end with the uninterrupted run's weights.

Both runs use the real pipeline on real text (4 Shakespeare texts, the uncased BERT vocab)
with dropout on. The restart restores weights, optimizer state, the dropout RNG state and
the step, and skips the batches already trained on (the pipeline is deterministic given
its seed), so the final weights are bitwise equal. Between the kill and the resume, a run whose
checkpoint write fails for lack of space (a file-size limit, as a full disk would) leaves the
previous checkpoint valid: the resume starts from it and still ends with the same weights.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _options(minilm_dir, **overrides):
    options = {"input": "shakespeare", "vocab": os.path.join(minilm_dir, "vocab.txt"),
               "files": 4, "seq_length": 64, "predictions": 5, "hidden": 32, "layers": 1,
               "batch": 16, "steps": 200, "steps_per_epoch": 10, "lr": 1e-3, "dropout": 0.1}
    options.update(overrides)
    return json.dumps(options)


def _command(output_dir, options):
    return [sys.executable, "-m", "tests.integration.pretrain_job", str(output_dir), options]


def _env():
    return dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")


def _run(output_dir, options, **kwargs):
    result = subprocess.run(_command(output_dir, options), cwd=ROOT, env=_env(), capture_output=True,
                            text=True, timeout=600, **kwargs)
    return result


def _done(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    line = [l for l in result.stdout.splitlines() if l.startswith("DONE ")][-1]
    return json.loads(line[5:])


def _weights(output_dir):
    values = {}
    with h5py.File(os.path.join(output_dir, "final", "pretrainer.weights.h5"), "r") as f:
        f.visititems(lambda name, obj: values.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) else None)
    return values


def _latest_step(checkpoint_dir):
    state = tf.train.get_checkpoint_state(str(checkpoint_dir))
    return int(state.model_checkpoint_path.rsplit("-", 1)[1]) if state else 0


def _limit_file_size(limit):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.slow
def test_sigkill_and_resume_ends_with_the_uninterrupted_weights(minilm_dir, tmp_path):
    options = _options(minilm_dir)
    reference = _done(_run(tmp_path / "reference", options))
    assert reference == {"start_step": 0, "step": 200}

    killed_dir = tmp_path / "killed"
    process = subprocess.Popen(_command(killed_dir, options), cwd=ROOT, env=_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while _latest_step(killed_dir / "checkpoints") < 30 and time.time() < deadline:
        assert process.poll() is None, "the job ended before it could be killed"
        time.sleep(0.05)
    # Somewhere after step 30, maybe inside a checkpoint write. 200 steps leave room: with
    # 60, the job once finished its last 30 steps inside the wait before the kill.
    time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_at = _latest_step(killed_dir / "checkpoints")
    assert 30 <= killed_at < 200

    # A failed checkpoint write (one process here, not a run of its own: the same files, in the
    # same run folder, on the way to the same weights): the next checkpoint (every 10 steps)
    # cannot be written, as no file may grow past half the last one's size.
    last = tf.train.get_checkpoint_state(str(killed_dir / "checkpoints")).model_checkpoint_path
    size = os.path.getsize(last + ".data-00000-of-00001")
    failed = _run(killed_dir, options, preexec_fn=_limit_file_size(size // 2))
    assert failed.returncode != 0
    assert _latest_step(killed_dir / "checkpoints") == killed_at

    resumed = _done(_run(killed_dir, options))
    assert resumed == {"start_step": killed_at, "step": 200}
    expected, actual = _weights(tmp_path / "reference"), _weights(killed_dir)
    assert expected.keys() == actual.keys() and len(expected) > 20
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)
    # The log was cut back to the checkpoint and continued: one row per step.
    with open(killed_dir / "training_log.csv") as f:
        steps = [int(row.split(",")[0]) for row in f.read().splitlines()[1:]
                 if row.split(",")[2] == "train"]
    assert steps == list(range(1, 201))
