"""Pooler: the standard layer checks and tanh(dense(first token)) by hand."""

import numpy as np

from keras_bert.layers import Pooler
from tests.layers.layer_checks import check_layer, to_numpy


def test_pooler_standard_checks_and_math():
    check_layer(lambda: Pooler(16), [np.ones((3, 5, 16), "float32")], (3, 16))
    pooler = Pooler(8)
    x = np.random.default_rng(0).normal(size=(2, 4, 8)).astype("float32")
    out = to_numpy(pooler(x))
    expected = np.tanh(x[:, 0] @ to_numpy(pooler.dense.kernel) + to_numpy(pooler.dense.bias))
    np.testing.assert_allclose(out, expected, atol=1e-6)


def test_gelu_pooler_for_electras_sequence_head():
    from scipy.special import erf

    pooler = Pooler(8, activation="gelu")
    assert Pooler.from_config(pooler.get_config()).activation == "gelu"
    x = np.random.default_rng(1).normal(size=(2, 4, 8)).astype("float32")
    out = to_numpy(pooler(x))
    h = x[:, 0] @ to_numpy(pooler.dense.kernel) + to_numpy(pooler.dense.bias)
    np.testing.assert_allclose(out, 0.5 * h * (1 + erf(h / np.sqrt(2))), atol=1e-6)
