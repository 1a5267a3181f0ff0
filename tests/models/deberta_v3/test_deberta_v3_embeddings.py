"""DebertaV3Embeddings: the shared layer checks; zero on padding; token types and absolute positions only where
the config has them."""

import numpy as np

from keras_bert.models.deberta_v3.deberta_v3_embeddings import DebertaV3Embeddings
from tests.layers.layer_checks import check_layer, to_numpy

IDS = np.array([[5, 6, 7, 0], [8, 9, 0, 0]], "int32")
MASK = (IDS > 0).astype("int32")


def test_layer_checks_and_padding_rows_are_zero():
    check_layer(lambda: DebertaV3Embeddings(20, 8, dropout_rate=0.0), [IDS, MASK, MASK * 0], (2, 4, 8))
    layer = DebertaV3Embeddings(20, 8)
    out = to_numpy(layer(IDS, MASK, MASK))
    assert np.all(out[MASK == 0] == 0) and np.all(np.abs(out[MASK == 1]).sum(-1) > 0)
    assert (layer.token_type_embeddings, layer.position_embeddings) == (None, None)
    assert len(layer.weights) == 3  # words, LayerNorm gamma and beta


def test_token_types_and_absolute_positions_where_configured():
    layer = DebertaV3Embeddings(20, 8, max_position_embeddings=4, type_vocab_size=2, position_biased_input=True)
    first, second = (to_numpy(layer(IDS, MASK, types)) for types in (MASK * 0, MASK))
    assert not np.allclose(first[MASK == 1], second[MASK == 1])
    assert tuple(layer.position_embeddings.embeddings.shape) == (4, 8) and len(layer.weights) == 5
