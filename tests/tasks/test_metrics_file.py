"""tasks/metrics_file.py: metrics.json is strict JSON; an undefined metric is null with the reason."""

import json

from keras_bert.tasks.metrics_file import write_metrics


def _strict(path):
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=lambda name: 1 / 0)


def test_a_non_finite_metric_is_null_with_a_note(tmp_path):
    path = tmp_path / "metrics.json"
    notes = write_metrics(path, {"pearson": float("nan"), "loss": float("inf"), "mse": 0.5, "count": 3})
    assert notes == {"pearson": "nan: not a finite number", "loss": "inf: not a finite number"}
    assert _strict(path) == {"pearson": None, "loss": None, "mse": 0.5, "count": 3, "notes": notes}
    assert not (tmp_path / "metrics.json.tmp").exists()


def test_the_task_explains_its_undefined_metric_and_finite_ones_have_no_notes(tmp_path):
    path = tmp_path / "metrics.json"
    notes = write_metrics(path, {"spearman": float("nan")}, explain=lambda name, value: f"{name}: constant gold")
    assert notes == {"spearman": "spearman: constant gold"} and _strict(path)["notes"] == notes
    assert write_metrics(path, {"accuracy": 1.0}) == {} and _strict(path) == {"accuracy": 1.0}
