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


@needs_exports
def test_a_sentence_transformers_folder_converts_to_one_sentence_transformers_loads(hf_model_dir, tmp_path):
    """--format st (the API's alias) keeps the folder's pooling, normalize and max_seq_length;
    sentence-transformers itself encodes the written folder as our embedder does."""
    import numpy as np
    import tensorflow as tf
    from sentence_transformers import SentenceTransformer

    from keras_bert.models.builders import build_embedder
    from keras_bert.text.preprocessor import Preprocessor

    embedder = build_embedder(load_checkpoint(hf_model_dir), "cls,mean", normalize=True,
                              task_config={"seq_length": 16})
    keras_bert.save_checkpoint(embedder, tmp_path / "st", format="st")
    result = run_tool("--input", tmp_path / "st", "--output", tmp_path / "out", "--format", "st")
    assert result.returncode == 0, result.stderr[-3000:]
    assert ("wrote sentence_transformers " f"{tmp_path / 'out'}: reloaded, weights identical, pooling cls,mean, "
            "normalize True, max_seq_length 16") in result.stdout
    texts = ["tok1 tok2 tok3", "tok7", "tok5 tok9 " * 12, "TOK4 tok33 tok1 tok2"]  # one past max_seq_length
    written = SentenceTransformer(str(tmp_path / "out"), device="cpu")
    assert written.max_seq_length == 16
    ours = embedder.predict(Preprocessor(embedder.encoder.text_config.tokenizer(), 16)(tf.constant(texts)), verbose=0)
    np.testing.assert_allclose(written.encode(texts), ours, atol=1e-5)


@needs_exports
def test_a_plain_bert_checkpoint_converts_to_sentence_transformers_as_its_mean_pooled_embedder(
        hf_model_dir, tmp_path):
    import numpy as np
    from sentence_transformers import SentenceTransformer

    result = run_tool("--input", hf_model_dir, "--output", tmp_path / "out", "--format", "sentence_transformers")
    assert result.returncode == 0, result.stderr[-3000:]
    assert ("holds no sentence embedder: writing the one load_checkpoint(path, model='embedding') builds "
            "from its BERT: mean pooling, normalized") in result.stdout
    assert "weights identical, pooling mean, normalize True" in result.stdout
    texts = ["tok1 tok2 tok3", "tok12 tok7 tok7"]
    written = SentenceTransformer(str(tmp_path / "out"), device="cpu").encode(texts)
    from_hf = SentenceTransformer(hf_model_dir, device="cpu").encode(texts)  # transformers' BERT, mean pooling
    np.testing.assert_allclose(written, from_hf / np.linalg.norm(from_hf, axis=1, keepdims=True), atol=1e-5)


@needs_exports
def test_a_fine_tuned_model_keras_converts_with_its_head(hf_model_dir, tmp_path):
    """model.keras of a classifier -> --format huggingface: transformers' BertForSequenceClassification
    with the labels, equal logits; --format google writes the encoder and says the head is dropped."""
    import numpy as np
    import torch
    import transformers

    classifier = keras_bert.build_classifier(load_checkpoint(hf_model_dir, model="encoder"), 3,
                                             task_config={"labels": ["a", "b", "c"]})
    classifier.save(tmp_path / "model.keras")
    assert load_checkpoint(tmp_path / "model.keras").task == "classification"  # the file says what it is
    result = run_tool("--input", tmp_path / "model.keras", "--output", tmp_path / "hf", "--format", "huggingface")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "(BertTaskModel, task classification)" in result.stdout and "weights identical" in result.stdout
    hf = transformers.AutoModelForSequenceClassification.from_pretrained(tmp_path / "hf").eval()
    assert type(hf).__name__ == "BertForSequenceClassification" and hf.config.id2label == {0: "a", 1: "b", 2: "c"}
    ids = np.array([[2, 7, 9, 11, 3, 0], [2, 5, 3, 0, 0, 0]], "int32")
    mask = (ids > 0).astype("int32")
    ours = classifier({"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)})
    with torch.no_grad():
        theirs = hf(input_ids=torch.tensor(ids, dtype=torch.long), attention_mask=torch.tensor(mask)).logits.numpy()
    np.testing.assert_allclose(np.asarray(ours["logits"] if isinstance(ours, dict) else ours), theirs, atol=1e-4)
    result = run_tool("--input", tmp_path / "model.keras", "--output", tmp_path / "google", "--format", "google")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "writing only its BERT encoder" in result.stderr and "weights identical" in result.stdout
