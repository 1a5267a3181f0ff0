"""export/serving_checks.py: what an exported model must be (one-line errors) and graph asserts on its ids."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export.serving_checks import checked_ids, checked_seq_length, check_model
from tests.models.tiny_bert import TINY, encoder_batch


def test_check_model_refuses_what_cannot_be_exported():
    with pytest.raises(TypeError, match="Expected a keras.Model .* got dict"):
        check_model({})
    with pytest.raises(ValueError, match="is not built"):
        check_model(keras.Sequential([keras.layers.Dense(2)]))
    x = keras.Input((4,), name="x")
    plain = keras.Model(x, keras.layers.Dense(2)(x))
    with pytest.raises(ValueError, match=r"lacks the input\(s\) \['input_word_ids', 'input_mask', 'input_type_ids'\]"):
        check_model(plain)
    check_model(keras_bert.build_encoder(TINY))


class _Tokenizer:
    vocab_size, vocab_path = 61, "vocab.txt"


def test_checked_seq_length_refuses_a_wrong_vocabulary_and_too_many_positions():
    assert checked_seq_length(TINY, None, 16.0) == 16
    with pytest.raises(ValueError, match=r"\(vocab.txt\) has 61 tokens but the model's word embeddings have 60"):
        checked_seq_length(TINY, _Tokenizer(), 16)
    with pytest.raises(ValueError, match=r"seq_length=33 exceeds the 32 positions the model takes \(max_position"):
        checked_seq_length(TINY, None, 33)
    roberta = TINY.replace(position_offset=2)  # RoBERTa's padding row and the one before it take no text
    with pytest.raises(ValueError, match=r"seq_length=31 exceeds the 30 positions .*use seq_length <= 30"):
        checked_seq_length(roberta, None, 31)


def test_checked_ids_pass_good_ids_and_name_a_bad_input():
    batch = {k: tf.constant(v) for k, v in encoder_batch().items()}
    out = checked_ids(batch, 32, 60, 2)
    np.testing.assert_array_equal(out["input_word_ids"], batch["input_word_ids"])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input_word_ids values must be in \[0, vocab_size=60\)"):
        checked_ids(dict(batch, input_word_ids=batch["input_word_ids"] + 60), 32, 60, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input_mask must have the shape of input_word_ids"):
        checked_ids(dict(batch, input_mask=batch["input_mask"][:, :4]), 32, 60, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="longer than the model's max_position_embeddings=4"):
        checked_ids(batch, 4, 60, 2)
    odd_types = dict(batch, input_type_ids=batch["input_type_ids"] + 5)  # a model without a type table reads none
    np.testing.assert_array_equal(checked_ids(odd_types, 32, 60, 0)["input_type_ids"], odd_types["input_type_ids"])
