"""classification_metrics against scikit-learn's accuracy and macro-F1."""

import numpy as np
import pytest

from keras_bert.tasks import classification_metrics


@pytest.mark.parametrize("seed, classes", [(0, 2), (1, 5)])
def test_macro_f1_matches_scikit_learn(seed, classes):
    metrics_module = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes - 1, 200)  # the last class never occurs in the labels
    logits = rng.normal(size=[200, classes]) + 2.0 * np.eye(classes)[labels]
    predictions = logits.argmax(-1)
    metrics = classification_metrics(labels, logits)
    assert metrics["accuracy"] == pytest.approx(metrics_module.accuracy_score(labels, predictions))
    assert metrics["macro_f1"] == pytest.approx(
        metrics_module.f1_score(labels, predictions, average="macro"), abs=1e-6)
    assert metrics["majority_baseline"] == pytest.approx(np.bincount(labels).max() / 200)
