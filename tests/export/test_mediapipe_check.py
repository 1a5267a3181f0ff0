"""export/mediapipe_check.py: how MediaPipe's packed ids differ from the reference, and the README saying so."""

import types

import numpy as np
import tensorflow as tf

from keras_bert.export.mediapipe_check import TOKENIZER_DIFFERENCES, compare_tokenizers, tokenizer_summary, write_readme
from keras_bert.text.preprocessor import Preprocessor
from tests.export.conftest import small_vocab, tokenizer  # noqa: F401 (export's small vocabulary)

TEXTS = ["the king is dead", "long live the king"]


def test_compare_tokenizers_counts_and_shows_the_texts_that_differ(tokenizer):
    ids = {k: v.numpy() for k, v in Preprocessor(tokenizer, 12)(tf.constant(TEXTS)).items()}
    same = compare_tokenizers(tokenizer, 12, TEXTS, ids)
    assert (same["texts"], same["differ"], same["examples"]) == (2, 0, [])
    changed = {k: v.copy() for k, v in ids.items()}
    changed["input_word_ids"][1, 1] = tokenizer.vocab.index("queen") if "queen" in tokenizer.vocab else 5
    differ = compare_tokenizers(tokenizer, 12, TEXTS, changed)
    assert differ["differ"] == 1 and differ["examples"][0][0] == "long live the king"
    text, want, got = differ["examples"][0]
    assert want[:2] == ["[CLS]", "long"] and got[1] != "long"
    np.testing.assert_array_equal(differ["ids"]["input_word_ids"], ids["input_word_ids"])
    lines = tokenizer_summary(differ)
    assert lines[0] == "1 of 2 checked texts tokenize differently from the reference."
    assert lines[1].startswith("  'long live the king': reference [CLS] long live")
    assert tokenizer_summary(None) == ["(not measured: exported without checks)"]


def test_the_readme_names_the_task_the_labels_and_every_difference(tmp_path):
    serving = types.SimpleNamespace(labels=["neg", "pos"], seq_length=64)
    path = tmp_path / "README.md"
    write_readme(path, "classifier", "probabilities", serving, None)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# MediaPipe Tasks TextClassifier") and "['neg', 'pos']" in text
    assert "into `64` ids" in text and all(difference in text for difference in TOKENIZER_DIFFERENCES)
