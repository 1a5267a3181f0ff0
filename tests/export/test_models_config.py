"""models.config: regenerated from the SavedModels on disk, in TF Serving's text format."""

import pytest

from keras_bert.export import write_models_config
from keras_bert.export.models_config import exported_models, read_model_names


def fake_export(base, name, version):
    path = base / name / str(version)
    path.mkdir(parents=True)
    (path / "saved_model.pb").write_bytes(b"")


def test_lists_exactly_the_exported_models(tmp_path):
    fake_export(tmp_path, "sst2", 1)
    fake_export(tmp_path, "sst2", 3)
    fake_export(tmp_path, "minilm", 1)
    (tmp_path / "minilm" / "tflite" / "1").mkdir(parents=True)  # not a SavedModel version
    (tmp_path / "empty").mkdir()
    path = write_models_config(str(tmp_path))
    assert exported_models(str(tmp_path)) == {"minilm": [1], "sst2": [1, 3]}
    assert read_model_names(path) == ["minilm", "sst2"]
    text = open(path).read()
    assert 'base_path: "/models/sst2"' in text and 'model_platform: "tensorflow"' in text
    assert text.count("config {") == 2 and text.strip().endswith("}")


def test_empty_and_bad_names(tmp_path):
    assert read_model_names(write_models_config(str(tmp_path))) == []
    fake_export(tmp_path, "bad name", 1)
    with pytest.raises(ValueError, match="not a valid TF Serving model name"):
        write_models_config(str(tmp_path))
