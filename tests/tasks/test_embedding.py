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
def reference(minilm_sentence_transformer):
    return minilm_sentence_transformer


@pytest.fixture(scope="module")
def texts(shakespeare_files):
    return hidden_texts(shakespeare_files)


@pytest.fixture(scope="module")
def expected(reference, texts):
    return reference.encode(texts)


@pytest.fixture(scope="module")
def embedder(minilm_dir):
    return keras_bert.load_checkpoint(minilm_dir, model="embedding")


@pytest.fixture(scope="module")
def exported(embedder, minilm_dir, tmp_path_factory):
    """One MiniLM embedder, exported once: SavedModel by `tools/export.py <the sentence-transformers folder>`
    in a fresh process (the raw folder exports its embedder); TFLite (float32 text model) and ONNX (ids model)
    through the API, from the embedder's model.keras loaded back. No int8 file (20 CPU-s to convert): int8 of
    the real MiniLM is checked against Keras in
    tests/integration/test_export_minilm.py::test_minilm_classifier_converts_to_tflite_float16_int8_with_parity."""
    import keras

    from keras_bert.export import export_onnx, export_tflite

    root = tmp_path_factory.mktemp("embed")
    tool = run_tool("export", minilm_dir, "--formats", "savedmodel", "--base_dir", root / "savedmodels",
                    "--name", "minilm_embed")
    embedder.save(root / "model.keras")
    model = keras.saving.load_model(root / "model.keras", compile=False)
    tokenizer = model.text_config.tokenizer()
    tflite = export_tflite(model, root / "tflite", tokenizer, seq_length=256, quantizations=(), verify_export=False)
    onnx = export_onnx(model, root / "onnx", optimize=False, tokenizer=tokenizer, verify_export=False,
                       seq_length=256, text=False)  # text_model.onnx: its tokenizer splits CJK differently
    return {"tool": tool, "savedmodel": root / "savedmodels" / "minilm_embed" / "1",
            "tflite": tflite.extra["files"], "onnx": onnx.extra["files"], "model": model}


def test_export_tool_on_the_folder_serves_embed_equal_to_sentence_transformers(exported, texts, expected):
    """`python tools/export.py <sentence-transformers folder> --formats savedmodel`: `embed` from raw text."""
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the tokenizer ops the SavedModel runs)

    assert exported["tool"].returncode == 0, exported["tool"].stderr[-3000:]
    assert "Model: embedding; seq_length=256; pooling=mean; normalize=True" in exported["tool"].stdout
    served = tf.saved_model.load(str(exported["savedmodel"]))
    embeddings = served.signatures["embed"](text_a=tf.constant(texts))["embeddings"].numpy()
    np.testing.assert_allclose(embeddings, expected, atol=1e-5)


def _tflite_runner(path, signature):
    import tensorflow_text
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    interpreter = InterpreterWithCustomOps(model_path=str(path),
                                           custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
    return interpreter.get_signature_runner(signature)


def test_tflite_float32_embeddings(exported, reference, texts, expected):
    """float32 from raw text equals sentence-transformers wherever TFLite's fast tokenizer gives
    the reference ids (FastBertTokenizer normalizes a few rare characters differently: docs/DESIGN.md, known traps).
    int8 (dynamic range) of the real MiniLM: tests/integration/test_export_minilm.py (top-1 agreement with Keras)."""
    served = _tflite_runner(exported["tflite"]["text_float32"], "serve_text")(text_a=np.array(texts, object))
    same_ids = [i for i, text in enumerate(texts)
                if served["input_word_ids"][i][served["input_mask"][i] == 1].tolist()
                == reference.tokenizer(text, truncation=True, max_length=256)["input_ids"]]
    assert len(same_ids) >= len(texts) - 1, f"TFLite ids differ on {sorted(set(range(len(texts))) - set(same_ids))}"
    np.testing.assert_allclose(served["embeddings"][same_ids], expected[same_ids], atol=1e-5)
    embed = _tflite_runner(exported["tflite"]["text_float32"], "embed")(text_a=np.array(texts[:2], object))
    np.testing.assert_allclose(embed["embeddings"], expected[:2], atol=1e-5)


def test_onnx_equals_sentence_transformers(exported, texts, expected):
    """model.onnx in onnxruntime on our tokenizer's ids (the reference WordPiece) equals sentence-transformers."""
    import onnxruntime
    import tensorflow as tf

    from keras_bert.text.preprocessor import Preprocessor

    ids = Preprocessor(exported["model"].text_config.tokenizer(), 256)(tf.constant(texts))
    session = onnxruntime.InferenceSession(str(exported["onnx"]["onnx"]), providers=["CPUExecutionProvider"])
    got = session.run(["embeddings"], {k: v.numpy() for k, v in ids.items()})[0]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_retrieval_metrics():
    anchors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    positives = np.array([[0.9, 0.1], [1.0, 0.0], [0.7, 0.7]])  # ranks of the own positive: 2, 3, 1
    metrics = retrieval_metrics(anchors, positives)
    assert metrics["recall@1"] == pytest.approx(1 / 3) and metrics["recall@5"] == 1.0
    assert metrics["mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1) / 3)


def _pairs(texts):
    """(anchor, positive) pairs of consecutive lines: each line's positive is the line after it."""
    return [(texts[i], texts[i + 1]) for i in range(0, len(texts) - 1, 2)]


def test_loss_equals_sentence_transformers_multiple_negatives_ranking_loss(embedder, reference, texts):
    """The same batch and weights: our in-batch loss on the embedder's outputs equals
    `sentence_transformers.losses.MultipleNegativesRankingLoss` (scale 20) on the real MiniLM."""
    import torch
    from sentence_transformers.losses import MultipleNegativesRankingLoss as ReferenceLoss

    from keras_bert.models import MultipleNegativesRankingLoss

    anchors, positives = zip(*_pairs(texts[:8]))
    task = EmbeddingTask(embedder.text_config.tokenizer(), 256, batch_size=len(anchors))
    interleaved = [t for pair in zip(anchors, positives) for t in pair]  # [a0, p0, a1, p1, ...]
    ours = float(MultipleNegativesRankingLoss(20.0)(np.zeros(len(interleaved)), task.embed(embedder, interleaved)))
    reference.eval()
    with torch.no_grad():
        features = [reference.tokenize(list(anchors)), reference.tokenize(list(positives))]
        expected = float(ReferenceLoss(reference, scale=20.0)(features, None))
    assert ours == pytest.approx(expected, abs=1e-5)


def test_finetune_tool_trains_pairs_and_reports_retrieval_and_spearman(minilm_dir, tmp_path, texts):
    """`tools/finetune.py embedding` in a fresh process, from a tiny checkpoint: in-batch negatives
    on (anchor, positive) pairs; the eval file's score column gives Spearman."""
    import json

    from tests.tasks.fresh_process import tiny_checkpoint, write_csv

    pairs = _pairs(texts[:14]) * 3
    train = write_csv(tmp_path / "pairs.csv", ["anchor", "positive"], pairs)
    dev = write_csv(tmp_path / "dev.csv", ["anchor", "positive", "score"],
                    [(a, p, i % 5) for i, (a, p) in enumerate(_pairs(texts[:14]))])
    result = run_tool("finetune", "embedding", "--checkpoint", tiny_checkpoint(minilm_dir, tmp_path / "bert"),
                      "--train_file", train, "--eval_file", dev, "--output_dir", tmp_path / "run",
                      "--seq_length", 16, "--batch_size", 8, "--epochs", 2, "--learning_rate", 1e-3,
                      "--jit_compile", "off", "--quiet")
    assert result.returncode == 0, result.stderr[-3000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert set(metrics) >= {"recall@1", "recall@5", "recall@10", "mrr", "random_mrr", "spearman_cosine"}
    assert 0 < metrics["mrr"] <= 1 and -1 <= metrics["spearman_cosine"] <= 1


def test_pooling_comes_from_a_sentence_transformers_checkpoint(minilm_dir, tokenizer):
    from keras_bert.checkpoints.loading import read_checkpoint

    task = EmbeddingTask.from_checkpoint(read_checkpoint(minilm_dir), 128)
    assert (task.pooling, task.normalize) == ("mean", True)
    assert EmbeddingTask(tokenizer, 128, pooling="cls", normalize="off").model_options()["scale"] == 20.0


def test_bad_pairs_are_refused_in_one_line(tmp_path, tokenizer):
    from tests.tasks.fresh_process import write_csv

    one = write_csv(tmp_path / "one.csv", ["anchor", "positive"], [("a", "b")])
    with pytest.raises(ValueError, match="has 1 pair; in-batch negatives need at least 2 pairs"):
        EmbeddingTask(tokenizer, 16).read(one, training=True)
    with pytest.raises(ValueError, match=r"Column 'positive' \(--text_b / text_b=\) not found"):
        EmbeddingTask(tokenizer, 16).read(write_csv(tmp_path / "x.csv", ["anchor", "other"], [("a", "b")]), True)
    with pytest.raises(ValueError, match=r"pooling='lasttoken' \(--pooling\)"):
        EmbeddingTask(tokenizer, 16, pooling="lasttoken")
