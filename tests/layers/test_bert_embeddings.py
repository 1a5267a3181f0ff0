import numpy as np
import pytest

from keras_bert.layers import BertEmbeddings
from tests.layers.layer_checks import check_layer, to_numpy


def make_layer(**overrides):
    args = dict(vocab_size=50, hidden_size=16, max_position_embeddings=12, type_vocab_size=2,
                dropout_rate=0.0)
    args.update(overrides)
    return BertEmbeddings(**args)


def inputs(batch=3, seq=7):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 50, (batch, seq)).astype("int32"),
            rng.integers(0, 2, (batch, seq)).astype("int32")]


def test_standard_layer_checks():
    check_layer(make_layer, inputs(), (3, 7, 16))


@pytest.mark.parametrize("training", [False, True])  # training flattens the LayerNorm's input
def test_sum_of_three_embeddings_then_layer_norm(training):
    layer = make_layer()
    ids, types = inputs()
    out = to_numpy(layer(ids, types, training=training))
    word = to_numpy(layer.word_embeddings.embeddings)
    position = to_numpy(layer.position_embeddings.embeddings)
    segment = to_numpy(layer.token_type_embeddings.embeddings)
    summed = word[ids] + segment[types] + position[None, :ids.shape[1]]
    mean, var = summed.mean(-1, keepdims=True), summed.var(-1, keepdims=True)
    np.testing.assert_allclose(out, (summed - mean) / np.sqrt(var + 1e-12), atol=1e-5)


def test_sequence_longer_than_positions_is_refused():
    layer = make_layer()
    with pytest.raises(ValueError, match="max_position_embeddings=12"):
        layer(np.zeros((1, 13), "int32"), np.zeros((1, 13), "int32"))


@pytest.mark.parametrize("argument, value, message", [
    ("ids", 50, "input_word_ids holds 50, outside \\[0, vocab_size=50\\)"),
    ("ids", -1, "input_word_ids holds -1"),
    ("types", 2, "input_type_ids holds 2, outside \\[0, type_vocab_size=2\\)"),
    ("positions", 12, "input_position_ids holds 12, outside \\[0, max_position_embeddings=12\\)"),
])
def test_out_of_range_ids_are_refused_with_the_value_and_the_limit(argument, value, message):
    """Every backend: TF CPU used to raise a GatherV2 trace, JAX returned NaN, torch IndexError."""
    ids, types = inputs()
    given = {"ids": ids, "types": types, "positions": np.zeros_like(ids)}
    given[argument] = given[argument].copy()
    given[argument][1, 2] = value
    with pytest.raises(ValueError, match=message):
        make_layer()(given["ids"], given["types"], given["positions"])
