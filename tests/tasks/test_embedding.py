"""The embedding task: all-MiniLM-L6-v2 served from raw text (SavedModel, TFLite, ONNX) equals
`SentenceTransformer.encode`; fine-tuning on pairs with in-batch negatives; retrieval metrics."""

import os

import numpy as np
import pytest

import keras_bert
from keras_bert.tasks.embedding import EmbeddingTask, retrieval_metrics
from tests.checkpoints.test_sentence_transformers_checkpoint import hidden_texts
from tests.conftest import run_tool

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local folders only


@pytest.fixture(scope="module")
def reference(minilm_dir):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    return sentence_transformers.SentenceTransformer(minilm_dir, device="cpu")


@pytest.fixture(scope="module")
def texts(shakespeare_files):
    return hidden_texts(shakespeare_files)


@pytest.fixture(scope="module")
def expected(reference, texts):
    return reference.encode(texts)


@pytest.fixture(scope="module")
def exported(minilm_dir, tmp_path_factory):
    """One MiniLM embedder, exported once: SavedModel by tools/export.py in a fresh process from
    its model.keras; TFLite (float32 text model, int8 ids model) and ONNX through the API."""
    from keras_bert.export import export_onnx, export_tflite

    root = tmp_path_factory.mktemp("embed")
    model = keras_bert.load_checkpoint(minilm_dir, model="embedding")
    model.save(root / "model.keras")
    tool = run_tool("export", root / "model.keras", "--formats", "savedmodel", "--base_dir", root / "savedmodels",
                    "--name", "minilm_embed")
    tokenizer = model.text_config.tokenizer()
    tflite = export_tflite(model, root / "tflite", tokenizer, seq_length=256, quantizations=("int8",),
                           verify_export=False)
    onnx = export_onnx(model, root / "onnx", optimize=False, tokenizer=tokenizer, verify_export=False,
                       seq_length=256)
    return {"tool": tool, "savedmodel": root / "savedmodels" / "minilm_embed" / "1",
            "tflite": tflite.extra["files"], "onnx": onnx.extra["files"], "model": model}


def test_export_tool_serves_embed_equal_to_sentence_transformers(exported, texts, expected):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops the SavedModel runs)

    assert exported["tool"].returncode == 0, exported["tool"].stderr[-3000:]
    served = tf.saved_model.load(str(exported["savedmodel"]))
    embeddings = served.signatures["embed"](text_a=tf.constant(texts))["embeddings"].numpy()
    np.testing.assert_allclose(embeddings, expected, atol=1e-5)


def _tflite_runner(path, signature):
    import tensorflow_text
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    interpreter = InterpreterWithCustomOps(model_path=str(path),
                                           custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
    return interpreter.get_signature_runner(signature)


def test_tflite_float32_and_int8_embeddings(exported, reference, texts, expected):
    """float32 from raw text equals sentence-transformers wherever TFLite's fast tokenizer gives
    the reference ids (FastBertTokenizer normalizes a few rare characters differently: see DESIGN);
    int8 (dynamic range) keeps cosine >= 0.99."""
    served = _tflite_runner(exported["tflite"]["text_float32"], "serve_text")(text_a=np.array(texts, object))
    same_ids = [i for i, text in enumerate(texts)
                if served["input_word_ids"][i][served["input_mask"][i] == 1].tolist()
                == reference.tokenizer(text, truncation=True, max_length=256)["input_ids"]]
    assert len(same_ids) >= len(texts) - 1, f"TFLite ids differ on {sorted(set(range(len(texts))) - set(same_ids))}"
    np.testing.assert_allclose(served["embeddings"][same_ids], expected[same_ids], atol=1e-5)
    embed = _tflite_runner(exported["tflite"]["text_float32"], "embed")(text_a=np.array(texts[:2], object))
    np.testing.assert_allclose(embed["embeddings"], expected[:2], atol=1e-5)

    ids = {k: served[k] for k in ("input_word_ids", "input_mask", "input_type_ids")}
    int8 = _tflite_runner(exported["tflite"]["int8"], "serving_default")(**ids)["embeddings"]
    cosine = np.sum(int8 * expected, axis=1) / np.linalg.norm(int8, axis=1) / np.linalg.norm(expected, axis=1)
    assert cosine[same_ids].min() >= 0.99, cosine


def test_onnx_text_model_equals_sentence_transformers(exported, reference, texts, expected):
    """text_model.onnx (onnxruntime-extensions' BertTokenizer in the graph) equals sentence-transformers
    wherever that tokenizer gives the reference ids; it splits some scripts (Greek, CJK) differently."""
    import onnxruntime

    from keras_bert.export.onnx_text import ortx_library

    options = onnxruntime.SessionOptions()
    options.register_custom_ops_library(ortx_library())
    session = onnxruntime.InferenceSession(str(exported["onnx"]["onnx_text"]), options,
                                           providers=["CPUExecutionProvider"])
    differ = []
    for text, want in zip(texts, expected):  # the text model takes one example per call
        got = dict(zip(("embeddings", "input_word_ids"), session.run(
            ["embeddings", "input_word_ids"], {"text_a": np.array([text], object), "text_b": np.array([], object)})))
        if got["input_word_ids"][0].tolist() != reference.tokenizer(text, truncation=True, max_length=256)["input_ids"]:
            differ.append(text)
            continue
        np.testing.assert_allclose(got["embeddings"][0], want, atol=1e-5, err_msg=text[:60])
    assert len(differ) <= 1, differ


def test_retrieval_metrics():
    anchors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    positives = np.array([[0.9, 0.1], [1.0, 0.0], [0.7, 0.7]])  # ranks of the own positive: 2, 3, 1
    metrics = retrieval_metrics(anchors, positives)
    assert metrics["recall@1"] == pytest.approx(1 / 3) and metrics["recall@5"] == 1.0
    assert metrics["mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1) / 3)
