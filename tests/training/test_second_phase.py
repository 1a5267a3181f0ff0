"""Two-phase pretraining (BERT's recipe) end to end on a tiny model: seq 16 with 3 predictions,
then seq 32 with 6, in one `run_pretraining` call; a SIGKILL in phase 2 resumes in phase 2.

The runs are `tests/integration/pretrain_job.py`'s job (synthetic input, dropout on, no XLA:
each phase's step is traced once and the trace is most of a tiny run's time), in this process
or, for the kill, in its own.
"""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.training import RunConfig, SecondPhase, bert_schedule
from tests.integration.pretrain_job import run_job
from tests.training.synthetic import synthetic_input

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS, SWITCH, KILL = 12, 6, 9  # phase 2 is half the steps, from an epoch boundary (2 steps each)
OPTIONS = {"seq_length": 16, "predictions": 3, "phase2_seq_length": 32, "phase2_predictions": 6,
           "phase2_fraction": 0.5, "hidden": 16, "layers": 1, "batch": 8, "steps": STEPS,
           "steps_per_epoch": 2, "lr": 1e-3, "weight_decay": 0.0, "jit_compile": "off"}


class _Recorder(keras.callbacks.Callback):
    """The learning rate before each step, and the position embeddings as each `fit` starts/ends."""

    def __init__(self):
        super().__init__()
        self.rates, self.positions = {}, []

    def _positions(self):
        variable = [v for v in self.model.weights if "position_embeddings" in v.path][0]
        self.positions.append(np.array(variable))

    def on_train_begin(self, logs=None):
        if not self.positions:
            self._positions()

    def on_train_batch_begin(self, batch, logs=None):
        optimizer = self.model.optimizer
        self.rates[int(optimizer.iterations.numpy())] = float(optimizer.learning_rate)

    def on_train_end(self, logs=None):
        self._positions()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted two-phase run and what `_Recorder` saw."""
    recorder = _Recorder()
    output_dir = tmp_path_factory.mktemp("reference")
    return run_job(str(output_dir), OPTIONS, callbacks=[recorder]), recorder, output_dir


def _weights(model):
    return [np.array(w) for w in model.weights]


def _train_steps(output_dir):
    with open(os.path.join(output_dir, "training_log.csv")) as f:
        return [int(row.split(",")[0]) for row in f.read().splitlines()[1:] if row.split(",")[2] == "train"]


def test_one_call_runs_both_phases_with_one_optimizer_and_schedule(reference):
    result, recorder, output_dir = reference
    assert (result["start_step"], result["step"]) == (0, STEPS)
    assert int(result["model"].optimizer.iterations.numpy()) == STEPS
    # The schedule runs on through the switch: the one-phase schedule's rate at every step.
    schedule = bert_schedule(1e-3, total_steps=STEPS, warmup_steps=STEPS // 10)
    assert sorted(recorder.rates) == list(range(STEPS))
    np.testing.assert_allclose([recorder.rates[s] for s in range(STEPS)],
                               [float(schedule(s)) for s in range(STEPS)], rtol=1e-6)
    # Phase 1 (16 tokens) trains position rows 0-15 only (no weight decay here); phase 2 rows
    # 16-30 too (31 real tokens).
    start, after_phase1, end = recorder.positions
    assert not np.array_equal(start[:16], after_phase1[:16])
    np.testing.assert_array_equal(start[16:], after_phase1[16:])
    assert np.all(np.any(end[16:31] != after_phase1[16:31], axis=1))
    with open(os.path.join(output_dir, "run_config.json")) as f:
        assert json.load(f)["identity"]["two_phase"] == {
            "fraction": 0.5, "phase1": {"seq_length": 16, "max_predictions_per_seq": 3},
            "phase2": {"seq_length": 32, "max_predictions_per_seq": 6}}
    assert _train_steps(output_dir) == list(range(1, STEPS + 1))


@pytest.mark.slow
def test_a_sigkill_in_phase_2_resumes_in_phase_2_with_the_same_weights(reference, tmp_path, capfd):
    """The job kills itself after step 9 (its last checkpoint: step 8, two batches into phase 2);
    rerun, it restores step 8 and trains on from the phase-2 data's third batch."""
    killed = subprocess.run(
        [sys.executable, "-m", "tests.integration.pretrain_job", str(tmp_path),
         json.dumps(dict(OPTIONS, sigkill_at=KILL))],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr[-3000:]
    with pytest.raises(ValueError, match=r"two_phase.phase2.seq_length: 32 there vs 24 now"):
        run_job(str(tmp_path), dict(OPTIONS, phase2_seq_length=24))
    capfd.readouterr()
    resumed = run_job(str(tmp_path), OPTIONS)
    assert (resumed["start_step"], resumed["step"]) == (8, STEPS)
    assert f"Resuming pretraining phase 2 of 2 from step 8 of {STEPS}" in capfd.readouterr().out
    for expected, actual in zip(_weights(reference[0]["model"]), _weights(resumed["model"])):
        np.testing.assert_array_equal(actual, expected)
    assert _train_steps(tmp_path) == list(range(1, STEPS + 1))


def test_refuses_position_embeddings_shorter_than_phase_2(tmp_path):
    config = keras_bert.BertConfig(vocab_size=64, hidden_size=16, num_layers=1, num_heads=2,
                                   intermediate_size=32, max_position_embeddings=24)
    with pytest.raises(ValueError, match=r"--phase2_seq_length 32 exceeds the model's "
                                         r"max_position_embeddings \(24\)"):
        keras_bert.run_pretraining(synthetic_input(16, 3), config, train_steps=4, steps_per_epoch=2,
                                   run=RunConfig(output_dir=tmp_path, strategy="default", verbose=0),
                                   phase2=SecondPhase(synthetic_input(32, 6), 0.5))


def test_refuses_a_fraction_that_leaves_a_phase_empty():
    with pytest.raises(ValueError, match="--phase2_fraction"):
        SecondPhase(synthetic_input(), fraction=1.0)
    with pytest.raises(ValueError, match="leaves phase 2 no steps"):
        SecondPhase(synthetic_input(), fraction=0.1).first_step(train_steps=8, steps_per_epoch=4)
    assert SecondPhase(synthetic_input(), fraction=0.1).first_step(600, 50) == 550
