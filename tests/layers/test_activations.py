import math

import numpy as np
import pytest
import torch

from keras_bert.layers.activations import gelu, gelu_tanh, get_activation
from tests.layers.layer_checks import to_numpy


def test_gelu_is_the_exact_erf_form():
    x = np.linspace(-6, 6, 101).astype("float32")
    reference = torch.nn.functional.gelu(torch.from_numpy(x), approximate="none").numpy()
    np.testing.assert_allclose(to_numpy(gelu(x)), reference, atol=1e-6)


def test_gelu_tanh_is_googles_approximation():
    x = np.linspace(-6, 6, 101).astype("float32")
    reference = torch.nn.functional.gelu(torch.from_numpy(x), approximate="tanh").numpy()
    np.testing.assert_allclose(to_numpy(gelu_tanh(x)), reference, atol=1e-6)
    # The two forms really differ (up to ~4.7e-4 on this range), so the choice matters.
    assert np.abs(to_numpy(gelu(x)) - to_numpy(gelu_tanh(x))).max() > 1e-4


def test_unknown_activation_is_named():
    with pytest.raises(ValueError, match="swish"):
        get_activation("swish")
