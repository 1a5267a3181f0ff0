"""ModernBertEmbeddings: the shared layer checks; LayerNorm without bias by default; the tied table."""

import numpy as np

from keras_bert.layers import ModernBertEmbeddings
from tests.layers.layer_checks import check_layer, to_numpy

IDS = np.array([[3, 4, 5, 0], [6, 7, 0, 0]], "int32")


def test_layer_checks():
    check_layer(lambda: ModernBertEmbeddings(20, 8), [IDS], (2, 4, 8))


def test_norm_without_bias_and_the_embedding_table():
    layer = ModernBertEmbeddings(20, 8)
    out = to_numpy(layer(IDS))
    assert [w.name for w in layer.weights] == ["embeddings", "gamma"]
    np.testing.assert_allclose(out.mean(-1), 0, atol=1e-5)  # normalized, no beta shift
    assert tuple(layer.embedding_table.shape) == (20, 8)
    biased = ModernBertEmbeddings(20, 8, norm_bias=True)
    biased.build(IDS.shape)
    assert [w.name for w in biased.weights] == ["embeddings", "gamma", "beta"]
