"""tools/convert_checkpoint.py, run as a user would (a subprocess)."""

import os

import pytest

import keras_bert
from keras_bert.checkpoints import load_checkpoint
from keras_bert.models import BertEncoder, BertPretrainer
from tests.conftest import run_tool as run_in_subprocess

needs_exports = pytest.mark.skipif(
    not hasattr(keras_bert, "load_checkpoint"),
    reason="keras_bert/__init__.py does not re-export load_checkpoint/save_checkpoint/"
           "compare_with_transformers yet (tools import only re-exported names)")


def run_tool(*args):
    return run_in_subprocess("convert_checkpoint", *args)


def test_auto_model_kind(hf_pretraining_dir, hf_model_dir):
    assert isinstance(load_checkpoint(hf_pretraining_dir, model="auto"), BertPretrainer)
    assert isinstance(load_checkpoint(hf_model_dir, model="auto"), BertEncoder)


@pytest.mark.slow
@needs_exports
def test_convert_all_formats_with_parity(hf_pretraining_dir, tmp_path):
    result = run_tool("--input", hf_pretraining_dir, "--output", str(tmp_path), "--format", "all",
                      "--reference", hf_pretraining_dir)
    assert result.returncode == 0, result.stderr[-3000:]
    print(result.stdout)
    assert "parity with transformers.BertModel" in result.stdout
    assert result.stdout.count("weights identical") == 4
    for fmt, name in (("google", "bert_model.ckpt.index"), ("huggingface", "model.safetensors"),
                      ("keras", "pretrainer.weights.h5"), ("keras_hub", "tokenizer.json")):
        assert os.path.exists(tmp_path / fmt / name)


@needs_exports
def test_bad_input_prints_error_not_traceback(tmp_path):
    result = run_tool("--input", str(tmp_path / "missing"), "--output", str(tmp_path / "o"), "--format", "google")
    assert result.returncode == 2
    assert "error: Checkpoint path" in result.stderr and "Traceback" not in result.stderr


@needs_exports
def test_a_sentence_transformers_folder_converts_as_its_bert_encoder(hf_model_dir, tmp_path):
    """The folder alone loads as its embedder; converting it to a BERT format writes its encoder."""
    from keras_bert.models.builders import build_embedder

    embedder = build_embedder(load_checkpoint(hf_model_dir), "cls", normalize=True, task_config={"seq_length": 16})
    keras_bert.save_checkpoint(embedder, tmp_path / "st", format="st")
    assert load_checkpoint(tmp_path / "st").task == "embedding"
    result = run_tool("--input", tmp_path / "st", "--output", tmp_path / "hf", "--format", "huggingface")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "is a sentence-transformers folder: converting its BERT encoder" in result.stdout
    assert "parameters (BertEncoder)" in result.stdout and "weights identical" in result.stdout
    assert "modules.json" not in os.listdir(tmp_path / "hf")
    assert isinstance(load_checkpoint(tmp_path / "hf"), BertEncoder)
