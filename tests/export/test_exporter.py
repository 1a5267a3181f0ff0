"""export_model's layout and refusals (checked before anything is written); parity_table; load_model."""

import os

import pytest

from keras_bert.export.exporter import export_model, export_paths, load_model, parity_table
from keras_bert.export.verify import ExportReport, ParityRow


def test_export_paths_follow_tf_serving_layout():
    assert export_paths("base", "sst2", 3) == {
        "savedmodel": os.path.join("base", "sst2", "3"), "tflite": os.path.join("base", "sst2", "tflite", "3"),
        "onnx": os.path.join("base", "sst2", "onnx", "3"), "hub": os.path.join("base", "sst2", "hub", "3")}


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(name="my model"), ValueError, "Model name 'my model' must be letters, digits"),
    (dict(name="m", formats=("savedmodel", "pb")), ValueError, r"Unknown format\(s\) \['pb'\]"),
    (dict(name="m", version=0), ValueError, "version must be a positive integer, got 0"),
    (dict(name="old", version=1), FileExistsError, r"Version 1 of 'old' already exists .* --overwrite"),
])
def test_bad_requests_are_refused_before_exporting(tmp_path, kwargs, error, message):
    os.makedirs(tmp_path / "old" / "1")
    with pytest.raises(error, match=message):
        export_model(None, base_dir=str(tmp_path), **kwargs)


def test_parity_table_joins_every_format_and_load_model_names_what_is_missing(tmp_path):
    reports = {"onnx": ExportReport("a", [ParityRow("onnx", "serve", "logits")]),
               "tflite": ExportReport("b", [ParityRow("tflite", "serve", "logits")])}
    assert [line.split()[0] for line in parity_table(reports).splitlines()] == ["artifact", "onnx", "tflite"]
    with pytest.raises(FileNotFoundError, match="Model file .*missing.keras does not exist"):
        load_model(tmp_path / "missing.keras")
    with pytest.raises(FileNotFoundError, match="pass a .keras file or a checkpoint directory"):
        load_model(tmp_path / "nothing_here")
