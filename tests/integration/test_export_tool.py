"""tools/export.py, run as a user runs it (a fresh process): a .keras classifier to SavedModel +
ONNX, the parity table, models.config, refusals."""

import os
import subprocess
import sys

import pytest

import keras_bert
from keras_bert.export.serving_config import read_model_names
from tests.conftest import ROOT, run_tool
from tests.export.helpers import randomize


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


def test_help():
    result = run_tool("export", "--help")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--overwrite" in result.stdout


def test_exports_prints_parity_and_refuses_an_existing_version(keras_file, tmp_path):
    base = str(tmp_path / "savedmodels")
    result = run_tool("export", keras_file, "--base_dir", base, "--formats", "savedmodel,onnx", "--seq_length", "32")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "serving_default[text_a]" in out and "onnx_optimized" in out and "FAIL" not in out
    assert "All exports match the Keras model." in out
    assert read_model_names(os.path.join(base, "models.config")) == ["sentiment"]
    assert os.path.isfile(os.path.join(base, "sentiment", "1", "saved_model.pb"))
    assert os.path.isfile(os.path.join(base, "sentiment", "onnx", "1", "model_optimized.onnx"))

    result = run_tool("export", keras_file, "--base_dir", base, "--formats", "savedmodel", "--version", "1")
    assert result.returncode == 2 and "already exists" in result.stderr, result.stderr[-3000:]
    assert run_tool("export", "missing.keras", "--base_dir", base).returncode == 2


def test_parity_failure_exits_nonzero(keras_file, tmp_path):
    """A fresh process whose ONNX tolerance is negative (so every comparison fails) runs the tool as
    its `__main__`: the tool's own path, with one constant changed before it starts."""
    tool = os.path.join(ROOT, "tools", "export.py")
    argv = [tool, keras_file, "--base_dir", str(tmp_path), "--formats", "onnx"]
    code = ("import runpy, sys\nimport keras_bert.export.onnx as onnx\nonnx.TOLERANCE = -1.0\n"
            f"sys.argv = {argv!r}\nrunpy.run_path(sys.argv[0], run_name='__main__')\n")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "FAIL" in result.stdout and "PARITY CHECK FAILED for onnx" in result.stderr
