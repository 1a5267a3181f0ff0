"""RegressionTask: metrics against scipy, the reader's errors, and fine-tune -> save -> fresh load -> export -> serve."""

import csv

import numpy as np
import pytest

from keras_bert.tasks.regression import RegressionTask, regression_metrics
from tests.tasks.fresh_process import finetune_tiny, keras_on_text, reload_and_export, saved_model_signature, write_csv

GOOD = ["good", "great", "fine", "nice", "happy"]
BAD = ["bad", "awful", "poor", "sad", "ugly"]


def _write(path, rows):
    return write_csv(path, ("sentence", "score"), rows)


def _share_of_good_words(path, n, seed):
    """Sentences of 3-8 good and bad words; the target is the share of good ones (0..1)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        k = int(rng.integers(3, 9))
        good = int(rng.integers(0, k + 1))
        words = list(rng.choice(GOOD, good)) + list(rng.choice(BAD, k - good))
        rng.shuffle(words)
        rows.append((" ".join(words), good / k))
    return _write(path, rows)


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True)])
def test_metrics_match_scipy(seed, ties):
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(seed)
    targets = rng.normal(size=300)
    if ties:  # ranks shared by equal values on both sides
        targets = np.round(targets)
    predictions = (0.7 * targets + rng.normal(size=300)).astype(np.float32)
    if ties:
        predictions = np.round(predictions * 2) / 2
    metrics = regression_metrics(targets, predictions[:, None])
    assert metrics["pearson"] == pytest.approx(stats.pearsonr(targets, predictions).statistic, abs=1e-6)
    assert metrics["spearman"] == pytest.approx(stats.spearmanr(targets, predictions).statistic, abs=1e-6)
    assert metrics["mse"] == pytest.approx(np.mean((predictions - targets) ** 2), rel=1e-6)
    assert metrics["mean_baseline_mse"] == pytest.approx(np.var(targets))


def test_constant_predictions_have_no_correlation():
    metrics = regression_metrics(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.5, 0.5]))
    assert np.isnan(metrics["pearson"]) and np.isnan(metrics["spearman"])


def test_reader_keeps_integer_targets_as_scores(tokenizer, tmp_path):
    """Integer-valued targets are scores, not classes (classification_dataset would make them classes)."""
    path = _write(tmp_path / "t.csv", [("a b", 1), ("c", 5), ("d e f", 3)])
    task = RegressionTask(tokenizer, 8, 2, label="score")
    features, targets = next(iter(task.read(path, training=False)))
    assert targets.dtype.name == "float32" and targets.numpy().tolist() == [[1.0], [5.0]]
    assert features["input_word_ids"].shape == (2, 8)


@pytest.mark.parametrize("rows, options, message", [
    ([("a", "1.5"), ("b", "high")], {}, "Row 2 of .* has score 'high' \\(--label score\\); task 'regression' "
                                        "needs a finite number"),
    ([("a", "1"), ("b", "nan")], {}, "Row 2 .* needs a finite number"),
    ([("a", "2"), ("b", "2")], {}, "every training example has the score 2.0; a regression needs targets that vary"),
    ([("a", "1")], dict(text_a="text"), "Column 'text' \\(--text_a / text_a=\\) not found"),
])
def test_bad_files_are_refused_in_one_line(tokenizer, tmp_path, rows, options, message):
    path = _write(tmp_path / "bad.csv", rows)
    with pytest.raises(ValueError, match=message):
        RegressionTask(tokenizer, 8, 2, **dict(dict(label="score"), **options)).read(path, training=True)


def test_options_are_declared_for_the_tool():
    options = RegressionTask.options()
    assert sorted(options) == ["aggregate", "doc_stride", "label", "text_a", "text_b"]
    assert all(help_text for _, _, help_text in options.values())


@pytest.mark.slow
def test_finetune_save_reload_export_and_serve(minilm_dir, tmp_path):
    train = _share_of_good_words(tmp_path / "train.csv", 320, seed=0)
    dev = _share_of_good_words(tmp_path / "dev.csv", 80, seed=1)
    # 4 epochs: pearson 0.991, spearman 0.996, mse 0.0021 (the bars: 0.9, 0.9, 0.026).
    result = finetune_tiny("regression", minilm_dir, tmp_path, train, dev, epochs=4, learning_rate=3e-3,
                           label="score")
    metrics = result["metrics"]
    print("regression:", metrics)
    # The metrics are scipy's on the model's own predictions of the dev file...
    stats = pytest.importorskip("scipy.stats")
    with open(dev, encoding="utf-8") as f:
        dev_rows = list(csv.DictReader(f))
    targets = np.array([float(row["score"]) for row in dev_rows])
    predicted = keras_on_text(result["model"], 16, [row["sentence"] for row in dev_rows])[:, 0]
    assert metrics["pearson"] == pytest.approx(stats.pearsonr(targets, predicted).statistic, abs=1e-5)
    assert metrics["spearman"] == pytest.approx(stats.spearmanr(targets, predicted).statistic, abs=1e-5)
    # ... and the model learnt the share of good words (a constant guess has MSE mean_baseline_mse).
    assert metrics["pearson"] > 0.9 and metrics["spearman"] > 0.9, metrics
    assert metrics["mse"] < 0.25 * metrics["mean_baseline_mse"], metrics

    # model.keras alone, its task options; then SavedModel, TFLite's text model and ONNX, each checked against Keras
    # by export (in fresh processes; the SavedModel's with keras and keras_bert blocked).
    model, reports, table = reload_and_export(
        tmp_path, "sts", {"seq_length": 16, "text_a": "sentence", "text_b": None, "label": "score"})
    assert "score[text_a]" in table and "onnx_text" in table  # TFLite's score signature, ONNX's text model
    assert "score" in {row.signature for row in reports["savedmodel"].rows}  # its hermetic check

    # The SavedModel's `score` signature on raw text is the model's score (the same signature in a fresh process with
    # only tensorflow + its text ops equals it: export's check above).
    texts = ["good great nice", "awful sad bad ugly", "fine poor", "", "Happy, HAPPY day!"]
    want = keras_on_text(model, 16, texts)[:, 0]
    served = saved_model_signature(reports["savedmodel"].path, "score", text_a=texts)
    assert sorted(served) == ["score"]
    np.testing.assert_allclose(served["score"], want, atol=1e-5)
    assert want[0] > want[1]  # more good words, a higher score
