"""ModernBertPredictionHead: the shared layer checks; norm(act(dense(x))) with the bias flags."""

import numpy as np

from keras_bert.layers import ModernBertPredictionHead
from keras_bert.layers.activations import gelu
from tests.layers.layer_checks import check_layer, to_numpy


def test_layer_checks():
    check_layer(lambda: ModernBertPredictionHead(8), [np.ones((2, 8), "float32")], (2, 8))


def test_is_norm_of_gelu_of_dense():
    x = np.random.default_rng(0).normal(size=(2, 3, 8)).astype("float32")
    head = ModernBertPredictionHead(8, use_bias=True)
    out = to_numpy(head(x))
    assert len(head.weights) == 3  # kernel, bias, gamma (no beta)
    h = to_numpy(gelu(x @ to_numpy(head.dense.kernel) + to_numpy(head.dense.bias)))
    expected = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, expected, atol=1e-5)
