"""tools/export.py: a .keras classifier to SavedModel + ONNX, the parity table, models.config, refusals."""

import importlib.util
import os

import pytest

import keras_bert
from keras_bert.export import onnx as onnx_module
from keras_bert.export.serving_config import read_model_names
from tests.export.helpers import randomize

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_tool():
    spec = importlib.util.spec_from_file_location("export_tool", os.path.join(ROOT, "tools", "export.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


@pytest.fixture(scope="module")
def keras_file(minilm_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("model")
    with open(os.path.join(minilm_dir, "vocab.txt"), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:3000]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = keras_bert.BertConfig(vocab_size=3000, hidden_size=32, num_layers=1, num_heads=2, intermediate_size=64)
    path = folder / "sentiment.keras"
    randomize(keras_bert.build_classifier(config, num_classes=2), seed=4).save(path)
    return str(path)


def test_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_tool().main(["--help"])
    assert exit_info.value.code == 0
    assert "--overwrite" in capsys.readouterr().out


def test_exports_prints_parity_and_refuses_an_existing_version(keras_file, tmp_path, capsys):
    tool = load_tool()
    base = str(tmp_path / "savedmodels")
    assert tool.main([keras_file, "--base_dir", base, "--formats", "savedmodel,onnx", "--seq_length", "32"]) == 0
    out = capsys.readouterr().out
    assert "serving_default[text_a]" in out and "onnx_optimized" in out and "FAIL" not in out
    assert "All exports match the Keras model." in out
    assert read_model_names(os.path.join(base, "models.config")) == ["sentiment"]
    assert os.path.isfile(os.path.join(base, "sentiment", "1", "saved_model.pb"))
    assert os.path.isfile(os.path.join(base, "sentiment", "onnx", "1", "model_optimized.onnx"))

    assert tool.main([keras_file, "--base_dir", base, "--formats", "savedmodel", "--version", "1"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert tool.main(["missing.keras", "--base_dir", base]) == 2


def test_parity_failure_exits_nonzero(keras_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(onnx_module, "TOLERANCE", -1.0)
    assert load_tool().main([keras_file, "--base_dir", str(tmp_path), "--formats", "onnx"]) == 1
    captured = capsys.readouterr()
    assert "FAIL" in captured.out and "PARITY CHECK FAILED for onnx" in captured.err
