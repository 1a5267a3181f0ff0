"""Task signatures (classify, entities) of exported SavedModels, run in a fresh process that
imports only tensorflow + tensorflow_text, equal to keras_bert's Python post-processing."""


import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.data.token_classification import token_classification_dataset
from keras_bert.export import export_onnx, export_saved_model
from keras_bert.tasks import task_signatures
from keras_bert.export.verify import run_artifact
from keras_bert.tasks import entity_spans
from tests.export.conftest import small_vocab, tiny_classifier, tiny_config, tokenizer  # noqa: F401 (export's small-vocabulary fixtures)
from tests.export.helpers import FIXTURES, compile_and_fit, randomize

NER_TEXTS = ["Angela Merkel met Emmanuel Macron in Paris on Monday.",
             "Shares of Siemens fell 2 percent in Munich, said Olaf Scholz.",
             "", "Zürich's café owners — and the Bundesbank — disagreed!"]


# ----- classification


LABELS = ["negative", "neutral", "positive"]
TEXTS = ["A gripping thriller.", "The plot is thin.", ""]
NER_SEQ_LENGTH = 16  # short: the second text is cut, its last words are tagged outside


@pytest.fixture(scope="module")
def sentiment_model(tiny_config):
    return randomize(keras_bert.build_classifier(tiny_config, num_classes=3), seed=3)


@pytest.fixture(scope="module")
def ner_export(ner_model, tokenizer, tmp_path_factory):
    """The token classifier's SavedModel (also tests/export/test_task_serving_check.py's)."""
    model, labels = ner_model
    export_dir = tmp_path_factory.mktemp("savedmodels") / "ner" / "1"
    export_saved_model(model, export_dir, tokenizer=tokenizer, seq_length=NER_SEQ_LENGTH, options={"labels": labels},
                       verify_export=False)
    return str(export_dir)


@pytest.fixture(scope="module")
def served(sentiment_model, ner_export, tokenizer, tmp_path_factory):
    """The classifier's `classify` on TEXTS and the token classifier's `entities` on NER_TEXTS, their SavedModels
    run in one fresh process that imports tensorflow + tensorflow_text only: `(outputs by signature, imported)`."""
    sentiment = tmp_path_factory.mktemp("savedmodels") / "sentiment" / "1"
    export_saved_model(sentiment_model, sentiment, tokenizer=tokenizer, seq_length=32, options={"labels": LABELS},
                       verify_export=False)
    ner = ner_export
    (classify, entities), info = run_artifact("savedmodel", sentiment, [
        ("classify", {"text_a": np.array(TEXTS, object)}),  # a single-text model's classify takes text_a
        ("entities", {"text": np.array(NER_TEXTS, object)}, ner)])
    return {"classify": classify, "entities": entities}, info["imported"]


def test_classify_returns_label_names_and_top_label(sentiment_model, served, tiny_config, tokenizer, tmp_path):
    labels, texts, model = LABELS, TEXTS, sentiment_model
    outputs, imported = served[0]["classify"], served[1]
    assert not {"keras", "keras_bert"} & set(imported)
    probabilities = keras.ops.convert_to_numpy(
        tf.nn.softmax(model(keras_bert.Preprocessor(tokenizer, 32)(tf.constant(texts)))))
    np.testing.assert_allclose(outputs["probabilities"], probabilities, atol=1e-5)
    assert [t.decode() for t in outputs["top_label"]] == [labels[i] for i in probabilities.argmax(-1)]
    assert outputs["labels"].tolist() == [[l.encode() for l in labels]] * 3

    # ONNX in onnxruntime (fresh process), label names out of the graph: ids in (model.onnx), and raw
    # text in (text_model.onnx, one text per call; on these texts its tokenizer agrees with ours).
    report = export_onnx(model, tmp_path / "onnx", tokenizer=tokenizer, seq_length=32, options={"labels": labels},
                         verify_export=False)
    # ONNX Runtime's optimizer on a classifier (once checked on the real MiniLM's, tests/integration/
    # test_export_minilm.py; the tiny classifier's fuse the same): its last layer computes [CLS] only
    # (BertEncoder.pooled_output_only), its one-query attention left to plain ops; the other layers fuse whole.
    fused = report.extra["fused_ops"]
    assert (fused["Attention"], fused["SkipLayerNormalization"], fused["BiasGelu"],
            fused["EmbedLayerNormalization"]) == (tiny_config.num_layers - 1, 2 * tiny_config.num_layers,
                                                  tiny_config.num_layers, 1), fused
    ids = {k: v.numpy() for k, v in keras_bert.Preprocessor(tokenizer, 32)(tf.constant(texts)).items()}
    (onnx_out, *text_out), info = run_artifact("onnx", tmp_path / "onnx" / "model.onnx", [("", ids)] + [
        ("", {"text_a": np.array([t], object), "text_b": np.array([], object)}, tmp_path / "onnx" / "text_model.onnx")
        for t in texts])
    assert not {"keras", "keras_bert", "tensorflow"} & set(info["imported"])
    np.testing.assert_allclose(onnx_out["probabilities"], probabilities, atol=1e-5)
    assert onnx_out["top_label"].tolist() == [labels[i] for i in probabilities.argmax(-1)]
    assert onnx_out["labels"].tolist() == [labels] * 3
    np.testing.assert_allclose(np.concatenate([o["probabilities"] for o in text_out]), probabilities, atol=1e-5)
    assert [o["top_label"][0] for o in text_out] == [t.decode() for t in outputs["top_label"]]


def test_classify_takes_text_b_only_for_a_pair_model(tiny_config, tokenizer):
    single = keras_bert.build_classifier(tiny_config, 2, task_config={"labels": ["no", "yes"]})
    pair = keras_bert.build_classifier(tiny_config, 2, task="pair_classification",
                                       task_config={"labels": ["no", "yes"], "text_b": "hypothesis"})
    for model, inputs in ((single, ["text_a"]), (pair, ["text_a", "text_b"])):
        classify = keras_bert.export.ServingModule(model, tokenizer).task_signatures()["classify"]
        assert [spec.name for spec in classify.input_signature] == inputs


def test_labels_must_match_the_outputs(tiny_classifier, tokenizer):
    with pytest.raises(ValueError, match="labels= has 2 names but the classification model has 3 outputs"):
        keras_bert.export.ServingModule(tiny_classifier, tokenizer, options={"labels": ["a", "b"]})


# ----- entities

TAG_SETS = {"bio": ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"],
            "iobes": ["O", "B-PER", "I-PER", "E-PER", "S-PER", "B-LOC", "I-LOC", "E-LOC", "S-LOC"],
            "io": ["O", "PER", "LOC"]}


@pytest.mark.parametrize("scheme", sorted(TAG_SETS))
def test_decode_entities_equals_entity_spans(scheme):
    labels = TAG_SETS[scheme]
    rng = np.random.default_rng(0)
    sentences = [rng.integers(0, len(labels), rng.integers(0, 12)).tolist() for _ in range(300)]
    first, last, tag = task_signatures.decode_entities(tf.ragged.constant(sentences, tf.int32), labels)
    names = task_signatures.entity_type_names(labels)
    decoded = [[(names[t], f, l) for f, l, t in zip(*row)]
               for row in zip(first.to_list(), last.to_list(), tag.to_list())]
    assert decoded == [entity_spans([labels[i] for i in s]) for s in sentences]


@pytest.fixture(scope="module")
def ner_model(tiny_config, tokenizer):
    dataset, labels = token_classification_dataset(f"{FIXTURES}/ner.conll", tokenizer, seq_length=32,
                                                   batch_size=4)
    model = randomize(keras_bert.build_token_classifier(keras_bert.build_encoder(tiny_config),
                                                        len(labels)), seed=5)
    return compile_and_fit(model, dataset, steps=3), labels


def python_entities(model, tokenizer, labels, text, seq_length):
    """The reference: first-piece tag per word (Keras), `entity_spans`, word offsets -> characters."""
    ids, starts, ends = (t.to_list()[0] for t in tokenizer.tokenize_with_offsets(tf.constant([text])))
    pieces = tf.ragged.constant([[p for word in ids for p in word]], tf.int32, row_splits_dtype=tf.int64)
    inputs = keras_bert.Preprocessor(tokenizer, seq_length).pack([pieces])
    probabilities = keras.ops.convert_to_numpy(tf.nn.softmax(model(inputs)))[0]
    tags, scores, position = [], [], 1
    for word in ids:
        if position < seq_length - 1:
            tags.append(labels[int(probabilities[position].argmax())])
            scores.append(float(probabilities[position].max()))
        else:
            tags.append("O")
            scores.append(0.0)
        position += len(word)
    return [(text[starts[f][0]:ends[l][-1]], type_, starts[f][0], ends[l][-1], np.mean(scores[f:l + 1]))
            for type_, f, l in entity_spans(tags)]


def test_entities_signature_equals_python_decoder(ner_model, served, tokenizer):
    model, labels = ner_model
    seq_length = NER_SEQ_LENGTH
    out, imported = served[0]["entities"], served[1]
    assert not {"keras", "keras_bert"} & set(imported)
    total = 0
    for row, text in enumerate(NER_TEXTS):
        expected = python_entities(model, tokenizer, labels, text, seq_length)
        n = int(out["num_entities"][row])
        actual = [(out["entity_text"][row, i].decode(), out["entity_label"][row, i].decode(),
                   int(out["start_char"][row, i]), int(out["end_char"][row, i]), float(out["score"][row, i]))
                  for i in range(n)]
        assert [a[:4] for a in actual] == [e[:4] for e in expected], text
        np.testing.assert_allclose([a[4] for a in actual], [e[4] for e in expected], atol=1e-5)
        total += n
    assert total > 0, "the held-out texts should hold some predicted entities"
