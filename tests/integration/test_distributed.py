"""The same pretraining run on one device, MirroredStrategy over 2 logical CPUs and
MultiWorkerMirroredStrategy with 2 worker processes on localhost gives the same loss curve and
final weights, with and without gradient accumulation (2 micro-batches per replica's batch of 4);
the multi-worker run has one worker killed (SIGKILL) mid-epoch and both restarted, and resumes; then a fine-tuning
run under the 2 workers, killed and restarted the same way, ends with the one-device fine-tuning's weights.

Global batch 8 everywhere; the distributed runs use `input_mode="split"`, so each global
batch is the single-device run's batch cut in two (one half per replica). Dropout is off.

Why the sequences are full length with 3 predictions each: like Google's BERT, each replica
averages the MLM loss over *its own* masked positions, and the replicas' gradients are then
averaged. That equals the single-device mean over all masked positions only when every
replica (and each micro-batch) has the same number of masked tokens. At seq_length 64, short_seq_prob 0 and
max_predictions_per_seq 3 the cap is always reached (checked below on the batches used).

Tolerance: float32 round-off (1e-6 relative) at every step: the replicas sum their gradients
in another order than one device does, and nothing more. Measured before the run loop summed
the replicas' gradients before clipping them (`apply_summed_gradients`): 2.3e-3 after 40 steps;
over the 10 steps run here, that bug (each replica's share clipped before Keras sums them) puts the
mirrored runs' per-step losses 1.2e-5 (step 3) to 2.5e-4 (step 10) relative and their weights 3.3e-3 from
one device's; the runs as they are: within 1.7e-7 and 7e-8.

The one-device run, the mirrored ones and the sharded one (stopped after step 5 and run again) share one
process, one after the other (each starts from RunConfig's seed): each process costs a TensorFlow import and
a pipeline (~14 CPU-s) and each step ~0.2 CPU-s. Resuming in a fresh process: the multi-worker runs.
"""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STEPS = 10
RESUMED = 5  # the multi-worker run is killed after step 7 and resumes from its step-5 checkpoint


def _options(minilm_dir, **overrides):
    options = {"input": "shakespeare", "vocab": os.path.join(minilm_dir, "vocab.txt"),
               "files": 4, "seq_length": 64, "predictions": 3, "short_seq_prob": 0.0,
               "hidden": 32, "layers": 1, "batch": 8, "steps": STEPS, "steps_per_epoch": 5,
               "lr": 1e-3, "dropout": 0.0, "jit_compile": "off", "input_mode": "split"}
    options.update(overrides)
    return options


def _start(output_dir, options, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.pretrain_job", str(output_dir), json.dumps(options)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", **(env or {})),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(process):
    output, _ = process.communicate(timeout=1200)  # the one process runs five jobs
    assert process.returncode == 0, output[-4000:]
    return output


def _curves(output_dir, prefix=""):
    curves = []
    for name in sorted(os.listdir(output_dir)):
        if name.startswith(prefix + "summary_"):
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


def _workers(output_dir, options, kill=None):
    """2 workers on localhost; returns their outputs. With `kill` (options for worker 1, e.g. `{"sigkill_at": 13}`),
    worker 1 kills itself (SIGKILL) after that step and worker 0, stuck in the next step's all-reduce, is killed
    too."""
    ports = _free_ports(2)
    workers = []
    for index in range(2):
        tf_config = {"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                     "task": {"type": "worker", "index": index}}
        workers.append(_start(output_dir, dict(options, **(kill if kill and index else {})),
                              env={"TF_CONFIG": json.dumps(tf_config)}))
    if kill:
        output, _ = workers[1].communicate(timeout=600)
        assert workers[1].returncode == -9, "worker 1 was to kill itself"
        workers[0].kill()
        return [workers[0].communicate()[0], output]
    return [_finish(worker) for worker in workers]


@pytest.fixture(scope="module")
def runs(minilm_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("distributed")
    # One process (one TensorFlow import) for the one-device run and the runs on 2 logical CPUs, one after the
    # other (each starts from RunConfig's seed), then the sharded run stopped after step 5 and run again.
    shard = {"strategy": "mirrored", "input_mode": "shard"}
    one_process = _finish(_start(root / "single", _options(
        minilm_dir, strategy="default", logical_cpus=2, finetune={},
        then=[[str(root / "mirrored"), {"strategy": "mirrored"}],
              [str(root / "mirrored_accumulated"), {"strategy": "mirrored", "accumulation": 2}],
              [str(root / "sharded"), dict(shard, stop_after=RESUMED)], [str(root / "sharded"), shard]])))
    options = _options(minilm_dir, strategy="multi_worker", accumulation=2)
    _workers(root / "multi_worker", options, kill={"sigkill_at": RESUMED + 2})
    # Restarted: pretraining resumes and ends; the fine-tuning after it is killed after its step 5 (worker 1),
    # and both are restarted again to resume it (tests.training.jax_runs.finetune, 2 epochs of 4 steps).
    outputs = _workers(root / "multi_worker", dict(options, finetune={}), kill={"finetune": {"sigkill_at": 5}})
    finetuned = _workers(root / "multi_worker", dict(options, pretrain=False, finetune={}))
    return {"resumed": outputs, "finetuned": finetuned, "one process": one_process, "root": root,
            **{name: (_curves(root / name), _weights(root / name))
               for name in ("single", "mirrored", "mirrored_accumulated", "multi_worker")},
            **{f"{name} fine-tuning": (_curves(root / name, "finetune_"), _weights(root / name, "finetune_"))
               for name in ("single", "multi_worker")}}


def _weights(output_dir, prefix=""):
    weights = []
    for name in sorted(os.listdir(output_dir)):
        if name.startswith(prefix + "weights_"):
            with np.load(os.path.join(output_dir, name)) as f:
                weights.append([f[key] for key in f.files])
    return weights


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
def test_mirrored_and_multi_worker_match_one_device(runs):
    """Per-step losses and final weights; the multi-worker run (2 micro-batches, as
    "mirrored_accumulated") was killed after step 7 and resumed from step 5."""
    ((single,), (single_weights,)) = runs["single"]
    assert single.shape == (STEPS, 2) and np.array_equal(single[:, 0], np.arange(1, STEPS + 1))
    for output in runs["resumed"]:
        assert f'DONE {{"start_step": {RESUMED}, "step": {STEPS}}}' in output
    curves, weights = runs["multi_worker"]
    assert len(curves) == 2 and len(weights) == 2  # one log and one model per worker
    chief = curves[0] if len(curves[0]) == STEPS else curves[1]  # the chief's log reads back steps 1-5
    np.testing.assert_array_equal(chief[:, 0], single[:, 0])
    for name in ("mirrored", "mirrored_accumulated", "multi_worker"):
        for curve in runs[name][0]:
            steps = curve[:, 0].astype(int)
            np.testing.assert_allclose(curve[:, 1], single[steps - 1, 1], rtol=1e-6, err_msg=name)
        for final in runs[name][1]:
            assert len(final) == len(single_weights)
            for a, b in zip(final, single_weights):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_array_equal(curves[0][RESUMED - STEPS:], curves[1][RESUMED - STEPS:])  # the workers agree
    for a, b in zip(*weights):
        np.testing.assert_array_equal(a, b)
    assert single[-1, 1] < single[0, 1]  # and it trains


@pytest.mark.slow
def test_multi_worker_fine_tuning_killed_and_restarted_ends_with_one_devices_weights(runs):
    """Fine-tuning (a tiny classifier, 8 steps, 2 micro-batches per worker) under 2 workers, worker 1 killed
    after step 5 and both restarted: it resumes from the step-4 checkpoint and ends with the one-device run's
    per-step losses and weights."""
    ((single,), (single_weights,)) = runs["single fine-tuning"]
    for output in runs["finetuned"]:
        assert "Resuming fine-tuning from step 4 of 8 (epoch 2 of 2)." in output
        assert 'FINETUNED {"start_step": 4, "steps": 4}' in output
    curves, weights = runs["multi_worker fine-tuning"]
    assert len(single) == 8 and len(curves) == len(weights) == 2
    for curve, final in zip(curves, weights):
        np.testing.assert_allclose(curve, single[4:], rtol=1e-6)
        for a, b in zip(final, single_weights):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_a_batch_that_does_not_split_across_replicas_is_refused(minilm_dir, tmp_path):
    process = _start(tmp_path, _options(minilm_dir, strategy="mirrored", logical_cpus=2, batch=7))
    output, _ = process.communicate(timeout=600)
    assert process.returncode != 0
    assert "global_batch_size=7 cannot be split evenly across 2 replicas" in output


@pytest.mark.slow
def test_sharded_input_under_mirrored_trains_and_resumes(runs):
    """`input_mode="shard"`: one pipeline per worker via distribute_datasets_from_function; stopped after step 5
    and run again (in the fixture's one process, after the other runs), it resumes from there."""
    done = [line for line in runs["one process"].splitlines() if line.startswith("DONE")]
    assert done == [f'DONE {{"start_step": 0, "step": {STEPS}}}'] * 3 + [
        f'DONE {{"start_step": 0, "step": {RESUMED}}}', f'DONE {{"start_step": {RESUMED}, "step": {STEPS}}}']
    (curve,) = _curves(runs["root"] / "sharded")  # the resumed run's whole log (it rewrote the stopped one's)
    np.testing.assert_array_equal(curve[:, 0], np.arange(1, STEPS + 1))
    assert np.all(np.isfinite(curve[:, 1]))
