"""Faults, round three (issue 30 section 1), the training side: run folders, the divergence guard,
metrics.json, long CSV fields, the embedding batch, RunConfig. Tool rows run `python tools/finetune.py`
in a fresh process; API rows check the one-line error."""

import json
import os
import random

import pytest

from tests.reliability.conftest import assert_api_error, assert_one_line_error, run_subprocess
from tests.tasks.fresh_process import write_csv

WORDS = "the king is dead long live horse kingdom for a my good bad day night".split()


def _sentences(n, seed=0, words=6):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(words)) for _ in range(n)]


_csv = write_csv  # the new-task tests' CSV writer


def _scores(tmp, name="train.csv", n=16, constant=None):
    rng = random.Random(1)
    return _csv(tmp / name, ["sentence", "label"],
                [(s, constant if constant is not None else round(rng.uniform(0, 5), 2)) for s in _sentences(n)])


def _finetune(task, checkpoint, train, output_dir, *extra):
    # No XLA: none of these rows is about it (the guards run the same step either way), and compiling cost each run
    # ~3-8 CPU-s.
    return run_subprocess("finetune", [task, "--checkpoint", checkpoint, "--train_file", train, "--seq_length", 16,
                                       "--epochs", 1, "--output_dir", output_dir, "--quiet", "--jit_compile", "off",
                                       *extra], timeout=300)


# ----- 1. One run per --output_dir; resume still works; a dead holder's lock file blocks nothing.

def test_a_held_run_folder_is_refused_and_a_dead_holders_lock_blocks_nothing(tiny_checkpoint, tmp_path):
    from keras_bert.training.folder_lock import LOCK_FILE, exclusive_run_folder

    train = _scores(tmp_path)
    constant_eval = _scores(tmp_path, "dev.csv", n=8, constant=2.0)
    run = tmp_path / "run"
    args = ("regression", tiny_checkpoint, train, run, "--batch_size", 4, "--eval_file", constant_eval)
    with exclusive_run_folder(str(run)):  # this process holds it: another run is going on
        refused = _finetune(*args)
    assert refused.returncode == 2, refused.stderr[-3000:]
    assert_one_line_error(refused.stderr, f"--output_dir {str(run)!r} is in use by another run",
                          f"pid {os.getpid()}", "pass another --output_dir")
    assert not (run / "checkpoints").exists() and not (run / "model.keras").exists()
    # A run killed with the folder held leaves run.lock; the lock died with it.
    (run / LOCK_FILE).write_text("pid 999999 on gone, since yesterday: a killed run\n", encoding="utf-8")
    first = _finetune(*args)
    assert first.returncode == 0, first.stderr[-3000:]
    assert not (run / LOCK_FILE).exists()  # released at the end
    # 3. metrics.json is strict JSON: a correlation of constant gold scores is null, with the reason.
    text = (run / "metrics.json").read_text(encoding="utf-8")
    metrics = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in metrics.json"))
    assert metrics["pearson"] is None and metrics["spearman"] is None and metrics["mse"] >= 0
    assert "gold scores or the predictions are all equal" in metrics["notes"]["pearson"]
    assert "Note: pearson is undefined" in first.stdout
    # That the same command on the finished run then evaluates again and trains nothing is
    # tests/integration/test_finetune_resume.py's ("holds a finished run"); a third run here re-proved it.


# ----- 2. --on_nonfinite skip: a limit on skipped steps, and no model that predicts NaN.

def test_skip_stops_after_ten_skipped_steps_in_a_row(tiny_checkpoint, tmp_path):
    result = _finetune("regression", tiny_checkpoint, _scores(tmp_path), tmp_path / "run", "--batch_size", 1,
                       "--learning_rate", 1e30, "--on_nonfinite", "skip")
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "the last 10 steps had a non-finite loss and were skipped",
                          "--on_nonfinite skip stops after 10 in a row", "Lower --learning_rate")
    assert not (tmp_path / "run" / "model.keras").exists()


def test_skip_never_saves_a_model_that_predicts_nan(tiny_checkpoint, tmp_path):
    train = _scores(tmp_path)
    result = _finetune("regression", tiny_checkpoint, train, tmp_path / "run", "--batch_size", 4,
                       "--learning_rate", 1e30, "--on_nonfinite", "skip", "--eval_file", train)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "predicts non-finite values", "Lower --learning_rate", "--output_dir")
    assert not (tmp_path / "run" / "model.keras").exists() and not (tmp_path / "run" / "metrics.json").exists()


# ----- 4. A CSV field over 131,072 characters reads as the same text in JSONL; csv's limit is restored.

# ----- 5. embedding: one pair per loss has no negative (loss 0, no gradient): refused.

def test_embedding_batch_size_1_is_refused(tiny_checkpoint, tmp_path):
    pairs = _csv(tmp_path / "pairs.csv", ["anchor", "positive"], zip(_sentences(8, 1), _sentences(8, 2)))
    result = _finetune("embedding", tiny_checkpoint, pairs, tmp_path / "run", "--batch_size", 1)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "batch_size=1 (--batch_size)", "at least 2 pairs", "--batch_size 2")


def _finetune_api(task="embedding", **kwargs):
    from keras_bert import finetune_task
    from keras_bert.training import RunConfig

    run = RunConfig(strategy="default", verbose=0, **kwargs.pop("run", {}))
    return lambda: finetune_task(task, "no_checkpoint", "no_file.csv", run=run, **kwargs)


def test_embedding_micro_batches_of_one_pair_are_refused():
    # 4 pairs as 4 micro-batches: each loss sees one pair (found beyond the list).
    assert_api_error(_finetune_api(batch_size=4, run={"gradient_accumulation_steps": 4}), ValueError,
                     "batch_size=4 (--batch_size) / 4 micro-batches gives 1", "--batch_size 8")


# ----- 6. RunConfig: integers are integers (2.5 was truncated to 2), in range; names are known.

def test_seed_flag_out_of_range_names_the_flag(tiny_checkpoint, tmp_path):
    # Before: "Seed must be between 0 and 2**32 - 1" from numpy, after loading everything.
    result = _finetune("regression", tiny_checkpoint, _scores(tmp_path), tmp_path / "run", "--seed", -1)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "seed=-1 (--seed) must be at least 0")


# ----- 7. More hostile cases on the same features.

@pytest.mark.parametrize("kwargs, fragment", [
    ({"learning_rate": float("nan")}, "learning_rate=nan (--learning_rate) must be a positive, finite number"),
    ({"learning_rate": -1e-3}, "learning_rate=-0.001"),
    ({"batch_size": 2.5}, "batch_size=2.5 (--batch_size) must be a whole number >= 1"),
    ({"epochs": True}, "epochs=True (--epochs)"),
    ({"seq_length": 0}, "seq_length=0 (--seq_length)"),
])
def test_finetune_task_refuses_bad_sizes(kwargs, fragment):
    # Before: NaN diverged at step 1 ("lower --learning_rate"), 2.5 was truncated to 2, True was 1.
    assert_api_error(_finetune_api("regression", **kwargs), ValueError, fragment)


def test_a_regression_score_beyond_float32_is_named(tiny_checkpoint, tmp_path):
    # Before: 1e39 is finite in Python, inf in float32: "Training diverged at step 1: the loss is inf".
    train = _csv(tmp_path / "huge.csv", ["sentence", "label"], [("the king", "1e39"), ("a horse", 2), ("my day", 3)])
    result = _finetune("regression", tiny_checkpoint, train, tmp_path / "run", "--batch_size", 2)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "Row 1", "huge.csv", "'1e39'", "float32", "--label label")


@pytest.mark.parametrize("content, fragment", [('{"identity": ', "is not valid JSON"), ("[1, 2]", "holds a list"),
                                               ('{"identity": [1]}', 'has an "identity" that is not an object'),
                                               ('{"identity": {"a": 1}, "settings": 3}', '"settings" that is not')])
def test_a_corrupt_run_config_json_is_named(tmp_path, content, fragment):
    # Before: "Expecting value: line 2 column 1 (char 14)", naming no file; a list: AttributeError.
    import keras

    import keras_bert
    from keras_bert.training.run_folder import RunFolder

    folder = RunFolder(str(tmp_path), {"a": 1}, {})
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    keras_bert.training.ResumableCheckpoint(folder.checkpoint_dir, model).save()
    (tmp_path / "run_config.json").write_text(content, encoding="utf-8")
    assert_api_error(folder.check, ValueError, "run_config.json", fragment, "--output_dir")


def test_no_embedding_training_batch_holds_a_lone_pair(tmp_path):
    # Before: 9 pairs in batches of 4 ended with a batch of 1 pair: a step with loss 0 that trained nothing.
    import keras_bert
    from keras_bert.tasks.embedding import EmbeddingTask
    from tests.reliability.conftest import real_vocab_file

    pairs = _csv(tmp_path / "pairs.csv", ["anchor", "positive"], zip(_sentences(9, 1), _sentences(9, 2)))
    task = EmbeddingTask(keras_bert.Tokenizer(real_vocab_file()), 16, 4)
    texts = [int(features["input_word_ids"].shape[0]) for features, _ in task.read(pairs, training=True)]
    assert texts == [8, 8]  # 2 texts a pair
    assert [int(f["input_word_ids"].shape[0]) for f, _ in task.read(pairs, training=False)] == [8, 8, 2]


def test_skip_still_stops_an_exploding_loss(tiny_checkpoint, tmp_path):
    # Before: with --on_nonfinite skip the explosion check was off: --learning_rate 1000 saved a model
    # whose eval MSE was 4.5e35 (pearson NaN) as a success.
    result = _finetune("regression", tiny_checkpoint, _scores(tmp_path), tmp_path / "run", "--batch_size", 1,
                       "--epochs", 2, "--learning_rate", 1000, "--on_nonfinite", "skip")
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "over 1000 times the run's first", "Lower --learning_rate")
    assert not (tmp_path / "run" / "model.keras").exists()
