"""ModelCall: the model on id inputs as the serving graphs call it: float32, checked ids, length groups."""

import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export.model_call import LENGTH_GROUPS, ModelCall
from tests.models.tiny_bert import TINY, encoder_batch


def test_length_groups_give_the_models_outputs_and_the_checks_refuse_bad_ids():
    encoder = keras_bert.build_encoder(TINY)
    call = ModelCall(encoder, TINY)
    batch = encoder_batch(batch=LENGTH_GROUPS + 1, lengths=(8, 5, 3, 2, 7))
    want = encoder(batch, training=False)
    got = call(batch, by_length=True)  # rows in groups of similar length, padded back to the longest
    mask = batch["input_mask"][..., None]
    np.testing.assert_allclose(got["sequence_output"] * mask, want["sequence_output"] * mask, atol=1e-5)
    np.testing.assert_allclose(got["pooled_output"], want["pooled_output"], atol=1e-5)
    assert got["sequence_output"].dtype == tf.float32
    bad = dict(batch, input_word_ids=batch["input_word_ids"] + TINY.vocab_size)
    with pytest.raises(tf.errors.InvalidArgumentError, match="vocab"):
        call(bad)
    assert ModelCall(encoder, TINY, runtime_checks=False).runtime_checks is False
