"""The TFLite text model's report-only row: on which sample rows its ids (FastBertTokenizer's NFKC
folding) differ from BERT's reference normalization, which the SavedModel uses."""

import tensorflow as tf

from keras_bert.export import ServingModule
from keras_bert.export.tflite import _reference_ids_row, fast_tokenizer
from keras_bert.text import Preprocessor


def fast_ids(module, segments):
    preprocessor = Preprocessor(fast_tokenizer(module.serving.tokenizer), module.serving.seq_length, padding="longest")
    return {k: v.numpy() for k, v in preprocessor(*[tf.constant(s) for s in segments]).items()}


def test_row_names_the_rows_that_differ(tiny_classifier, tokenizer):
    module = ServingModule(tiny_classifier, tokenizer, seq_length=32)
    texts = ["The quick brown fox.", "wait\u2026 Stra\u00dfe\u2122", "", "plain again", "\uff2f\uff2d\uff27 ok"]
    row = _reference_ids_row(module.serving, "text_a", [texts], fast_ids(module, [texts]))
    assert (row.artifact, row.signature, row.output) == ("tflite_text_float32", "serve_text[text_a]",
                                                         "ids == reference tokenizer")
    assert row.ok and row.agreement == 0.6
    assert row.note.startswith("report only: differs on rows [1, 4], e.g. 'wait\u2026 Stra\u00dfe\u2122'")


def test_row_for_pairs_and_equal_texts(tiny_classifier, tokenizer):
    module = ServingModule(tiny_classifier, tokenizer, seq_length=32)
    segments = [["a b", "long " * 40], ["c", "x\u2026"]]
    row = _reference_ids_row(module.serving, "text_a+text_b", segments, fast_ids(module, segments))
    assert row.agreement == 0.5 and "differs on rows [1]" in row.note  # text_b's folding counts too
    same = [["The quick brown fox.", ""]]
    assert _reference_ids_row(module.serving, "text_a", same, fast_ids(module, same)).note.startswith(
        "report only: equal on every row")
