"""BertEncoder: outputs, padding invariance, the max_position_embeddings refusal, the [CLS]-only last layer."""

import numpy as np
import pytest

import keras_bert
from tests.models.tiny_bert import TINY, encoder_batch
from tests.layers.layer_checks import to_numpy


def test_encoder_outputs_and_padding_invariance():
    encoder = keras_bert.build_encoder(TINY)
    batch = encoder_batch()
    out = encoder(batch, training=False)
    assert out["sequence_output"].shape == (3, 8, 16)
    assert out["pooled_output"].shape == (3, 16)
    assert len(out["encoder_outputs"]) == 2
    # Appending more padding leaves the real positions unchanged.
    padded = {k: np.pad(v, ((0, 0), (0, 6))) for k, v in batch.items()}
    out_padded = encoder(padded, training=False)
    for row, n in enumerate((8, 5, 3)):
        np.testing.assert_allclose(to_numpy(out_padded["sequence_output"])[row, :n],
                                   to_numpy(out["sequence_output"])[row, :n], atol=1e-5)
    np.testing.assert_allclose(to_numpy(out_padded["pooled_output"]), to_numpy(out["pooled_output"]), atol=1e-5)


def test_too_long_sequence_is_refused_with_both_numbers():
    encoder = keras_bert.build_encoder(TINY)
    batch = {k: np.zeros((1, 40), "int32") for k in ("input_word_ids", "input_mask", "input_type_ids")}
    with pytest.raises(ValueError, match="40 exceeds max_position_embeddings=32"):
        encoder(batch)


def test_pooled_output_only_equals_the_full_forward_and_refuses_training():
    """The [CLS]-only last layer (what a served pooled head uses) gives the full model's pooled_output."""
    encoder = keras_bert.build_encoder(TINY)
    batch = encoder_batch()
    np.testing.assert_allclose(to_numpy(encoder.pooled_output_only(batch)),
                               to_numpy(encoder(batch, training=False)["pooled_output"]), atol=1e-6)
    last = encoder.get_layer("transformer_layer_1")
    x = np.random.default_rng(0).normal(size=(3, 8, 16)).astype("float32")
    assert tuple(last(x, batch["input_mask"], first_token_only=True).shape) == (3, 1, 16)
    with pytest.raises(ValueError, match="first_token_only is for inference"):
        last(x, batch["input_mask"], training=True, first_token_only=True)
