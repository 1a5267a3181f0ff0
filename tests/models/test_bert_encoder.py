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


def test_pooled_output_only_and_query_positions_equal_the_full_forward():
    """The [CLS]-only last layer (what a served pooled head uses) gives the full model's pooled_output;
    a block's query_positions give the full output's rows there, in inference and training layout."""
    encoder = keras_bert.build_encoder(TINY)
    batch = encoder_batch()
    np.testing.assert_allclose(to_numpy(encoder.pooled_output_only(batch)),
                               to_numpy(encoder(batch, training=False)["pooled_output"]), atol=1e-6)
    last = keras_bert.layers.TransformerEncoderBlock(16, 2, 32, dropout_rate=0.0, attention_dropout_rate=0.0)
    x = np.random.default_rng(0).normal(size=(3, 8, 16)).astype("float32")
    positions = np.array([[0, 5], [0, 2], [0, 0]], "int32")
    for training in (False, True):
        full = to_numpy(last(x, batch["input_mask"], training=training))
        rows = to_numpy(last(x, batch["input_mask"], training=training, query_positions=positions))
        assert rows.shape == (3, 2, 16)
        np.testing.assert_allclose(rows, np.take_along_axis(full, positions[..., None], 1), atol=1e-6)


def test_a_narrower_embedding_is_projected_to_hidden_size():
    """embedding_size 8 < hidden_size 16 (ELECTRA-small): 8-wide embeddings, a named Dense 8 -> 16 before
    the blocks, also on the [CLS]-only path; equal sizes build none."""
    encoder = keras_bert.build_encoder(TINY.replace(embedding_size=8))
    batch = encoder_batch()
    out = encoder(batch, training=False)
    assert out["sequence_output"].shape == (3, 8, 16)
    assert encoder.embeddings.embedding_table.shape == (60, 8)
    names = {name: tuple(variable.shape) for name, variable, _ in encoder.named_variables()}
    assert names["bert/embeddings_project/kernel"] == (8, 16)
    assert len(names) == len(encoder.weights)
    np.testing.assert_allclose(to_numpy(encoder.pooled_output_only(batch)), to_numpy(out["pooled_output"]), atol=1e-6)
    same = keras_bert.build_encoder(TINY.replace(embedding_size=16))
    assert not any("embeddings_project" in name for name, _, _ in same.named_variables())
