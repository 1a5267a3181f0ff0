"""Long documents (`doc_stride`): windows, a label per window, per-document aggregation, serving.

The windows are checked against the reference tokenizer (transformers' BertTokenizerFast on the
MiniLM vocab) cut by Python slicing; the aggregation against numpy's mean of the window logits.
"""


import numpy as np
import pytest

from tests.conftest import run_tool
from tests.tasks.fresh_process import write_csv

SEQ = 16  # the tiny model's seq_length: 14 pieces a window


def _long_text(rng, words, n):
    return " ".join(rng.choice(words, n))


@pytest.fixture(scope="module")
def reference_ids(minilm_dir):
    from transformers import BertTokenizerFast

    reference = BertTokenizerFast.from_pretrained(minilm_dir)
    return lambda text: reference(text, add_special_tokens=False)["input_ids"]


def _reference_windows(pieces, window, stride):
    """run_squad.py's doc spans, by slicing."""
    windows, start = [], 0
    while True:
        windows.append(pieces[start:start + window])
        if start + window >= len(pieces):
            return windows
        start += min(stride, window)


def test_windows_equal_the_reference_tokenizer_sliced(tokenizer, reference_ids):
    import tensorflow as tf

    from keras_bert.data.text_windows import pack_windows

    texts = ["", "short text", "The quick brown fox jumps over the lazy dog " * 4,
             "Überraschung! naïve café " * 3]
    features, document = pack_windows(tokenizer, tf.constant(texts), SEQ, doc_stride=5)
    want, want_document = [], []
    for row, text in enumerate(texts):
        for window in _reference_windows(reference_ids(text), SEQ - 2, 5):
            want.append([tokenizer.cls_id, *window, tokenizer.sep_id] + [0] * (SEQ - 2 - len(window)))
            want_document.append(row)
    assert document.numpy().tolist() == want_document
    assert features["input_word_ids"].numpy().tolist() == want
    assert want_document.count(2) > 3  # the long text is several windows
    np.testing.assert_array_equal(features["input_mask"], np.asarray(want) != 0)


def test_every_window_carries_its_documents_label(tokenizer):
    from keras_bert.data.classification import text_dataset
    from keras_bert.data.text_windows import split_windows
    from keras_bert.text.preprocessor import Preprocessor

    texts = ["one two three " * 10, "four", "five six " * 12]
    dataset = text_dataset(Preprocessor(tokenizer, SEQ), texts, None, np.int32([7, 8, 9]), batch_size=4,
                           shuffle=True, doc_stride=6, dynamic_padding=True)
    rows = [(int(d), int(y)) for features, labels in dataset
            for d, y in zip(features["document"].numpy(), labels.numpy())]
    _, document = split_windows(tokenizer.tokenize(texts), SEQ - 2, 6)
    assert sorted(rows) == sorted((int(d), 7 + int(d)) for d in document.numpy())
    assert len(rows) == 4 + 1 + 3  # 30 pieces: windows at 0, 6, 12, 18; 1 piece; 24 pieces: 0, 6, 12


@pytest.mark.parametrize("options, message", [
    ({"doc_stride": 0}, "doc_stride=0 (--doc_stride) must be"),
    ({"doc_stride": 8, "aggregate": "median"}, "aggregate='median' (--aggregate)"),
])
def test_bad_window_options_are_refused_in_one_line(options, message):
    from keras_bert.tasks import TASKS

    for task in ("classification", "regression"):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as error:
            TASKS[task](None, SEQ, **options)
        assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="windows single texts"):
        TASKS["pair_classification"](None, SEQ, text_b="b", doc_stride=8)


def test_regression_score_signature_aggregates_windows(tokenizer, tiny_encoder, reference_ids):
    """The SavedModel's `score` (the export module, eagerly): the max of the window scores; the
    TFLite module (no runtime checks) truncates."""
    import tensorflow as tf

    from keras_bert.export import ServingModule
    from keras_bert.models.builders import build_classifier

    config = {"seq_length": SEQ, "text_a": "sentence", "text_b": None, "label": "score", "doc_stride": 5,
              "aggregate": "max"}
    model = build_classifier(tiny_encoder, 1, name="bert_regressor", task="regression", task_config=config)
    texts = ["The quick brown fox jumps over the lazy dog " * 3, "", "short"]
    score = ServingModule(model, tokenizer, SEQ).task_signatures()["score"]
    served = score(text_a=tf.constant(texts))["score"].numpy()
    want = [_window_outputs(model, tokenizer, reference_ids(text), 5).max() for text in texts]
    np.testing.assert_allclose(served, want, atol=1e-5)
    truncating = ServingModule(model, tokenizer, SEQ, runtime_checks=False).task_signatures()["score"]
    first = [_window_outputs(model, tokenizer, reference_ids(text), 5)[0, 0] for text in texts]
    np.testing.assert_allclose(truncating(text_a=tf.constant(texts))["score"].numpy(), first, atol=1e-5)


@pytest.mark.slow
def test_evaluate_and_export_aggregate_window_logits_per_document(tokenizer, tiny_encoder, tmp_path,
                                                                   reference_ids):
    from keras_bert.tasks import TASKS
    from keras_bert.tasks.classification import document_predictions

    rng = np.random.default_rng(0)
    good, bad = ["good", "great", "nice", "fine"], ["bad", "awful", "sad", "ugly"]
    filler = ["the", "a", "of", "and", "to", "in", "it", "was"]
    rows = []
    for i in range(24):  # the label's words are spread through 30-60 words of filler
        words = list(rng.choice(filler, rng.integers(30, 60)))
        for position in rng.choice(len(words), 3, replace=False):
            words[position] = rng.choice(good if i % 2 else bad)
        rows.append([" ".join(words), "pos" if i % 2 else "neg"])
    train = write_csv(tmp_path / "train.csv", ["sentence", "label"], rows[:16])
    dev = write_csv(tmp_path / "dev.csv", ["sentence", "label"], rows[16:])
    task = TASKS["classification"](tokenizer, SEQ, 8, doc_stride=7)
    task.fit_options(train)  # the label vocabulary
    training = task.read(train, training=True)  # windows, each with its document's label, no `document`
    model = task.build_model(tiny_encoder)
    model.compile(optimizer="adam", **task.compile_kwargs())
    model.fit(training.take(2), verbose=0)
    assert model.task_config == {"seq_length": SEQ, "labels": ["neg", "pos"], "text_a": "sentence",
                                 "label": "label", "doc_stride": 7, "aggregate": "mean"}

    # The evaluation: documents, each scored by the mean of its windows' logits (windows by slicing here).
    texts = [row[0] for row in rows[16:]]
    evaluation = task.read(dev, training=False)
    labels, logits = document_predictions(model, evaluation, task)
    want = np.stack([_mean_window_logits(model, reference_ids(text), 7) for text in texts])
    np.testing.assert_allclose(logits, want, atol=1e-5)
    assert labels.tolist() == [int(row[1] == "pos") for row in rows[16:]]
    assert task.evaluate(model, evaluation, dev)["accuracy"] == np.mean(want.argmax(-1) == labels)

    # tools/export.py on model.keras alone (a fresh process, no flag): its SavedModel's `classify`
    # windows long texts too (the tool checked it in yet another process, keras and keras_bert blocked from
    # importing; read back here against the windows sliced by the reference tokenizer: a third process cost ~7 CPU-s).
    model.save(tmp_path / "model.keras")
    exported = run_tool("export", tmp_path / "model.keras", "--name", "long", "--formats", "savedmodel",
                        "--base_dir", tmp_path / "savedmodels")
    assert exported.returncode == 0, exported.stderr[-3000:]
    assert "doc_stride=7; aggregate=mean" in exported.stdout
    assert "TFLite, ONNX and MediaPipe truncate them to seq_length=16" in exported.stdout
    import tensorflow as tf

    classify = tf.saved_model.load(str(tmp_path / "savedmodels" / "long" / "1")).signatures["classify"]
    served = {"probabilities": classify(text_a=tf.constant(texts[:3] + ["", "good"]))["probabilities"].numpy()}
    want = np.stack([_mean_window_logits(model, reference_ids(t), 7) for t in texts[:3] + ["", "good"]])
    np.testing.assert_allclose(served["probabilities"], _softmax(want), atol=1e-5)


def _softmax(logits):
    exp = np.exp(logits - logits.max(-1, keepdims=True))
    return exp / exp.sum(-1, keepdims=True)


def _window_outputs(model, tokenizer, pieces, stride):
    """The model's outputs on each window of `pieces`, packed here by slicing."""
    rows = [[tokenizer.cls_id, *w, tokenizer.sep_id] + [0] * (SEQ - 2 - len(w))
            for w in _reference_windows(pieces, SEQ - 2, stride)]
    ids = np.int32(rows)
    features = {"input_word_ids": ids, "input_mask": np.int32(ids != 0), "input_type_ids": np.zeros_like(ids)}
    return model.predict(features, verbose=0)


def _mean_window_logits(model, pieces, stride):
    return _window_outputs(model, model.text_config.tokenizer(), pieces, stride).mean(axis=0)
