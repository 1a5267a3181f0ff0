"""ModernBertBlock: the shared layer checks, the window bites, padding keys are invisible, first-layer norm."""

import numpy as np
import pytest

from keras_bert.layers import ModernBertBlock
from tests.layers.layer_checks import check_layer, to_numpy

X = np.random.default_rng(0).normal(size=(2, 12, 16)).astype("float32")
MASK = np.array([[1] * 12, [1] * 7 + [0] * 5], "int32")


@pytest.mark.parametrize("half_window", [None, 2])
def test_layer_checks(half_window):
    check_layer(lambda: ModernBertBlock(16, 2, 24, half_window=half_window), [X, MASK], (2, 12, 16))


def test_a_local_block_sees_only_its_window_and_no_block_sees_padding():
    local, wide = ModernBertBlock(16, 2, 24, half_window=2), ModernBertBlock(16, 2, 24, half_window=64)
    local.build(X.shape)
    wide.build(X.shape)
    wide.set_weights(local.get_weights())  # the same weights; only the window differs
    changed = X.copy()
    changed[:, 11] = X[:, 0]  # token 11 is beyond +-2 of token 5, within +-64
    assert np.allclose(to_numpy(local(changed, MASK))[0, 5], to_numpy(local(X, MASK))[0, 5], atol=1e-6)
    assert not np.allclose(to_numpy(wide(changed, MASK))[0, 5], to_numpy(wide(X, MASK))[0, 5], atol=1e-6)
    padded = X.copy()
    padded[1, 7:] = X[0, :5]  # padding rows of example 1 change: its real rows do not
    for block in (local, wide):
        np.testing.assert_allclose(to_numpy(block(padded, MASK))[1, :7], to_numpy(block(X, MASK))[1, :7], atol=1e-5)


def test_the_first_layer_has_no_attention_norm_and_biases_follow_the_flags():
    first = ModernBertBlock(16, 2, 24, attention_norm=False)
    first.build(X.shape)
    assert first.attn_norm is None and len(first.weights) == 5  # Wqkv, Wo, mlp_norm, Wi, Wo: no biases
    biased = ModernBertBlock(16, 2, 24, norm_bias=True, attention_bias=True, mlp_bias=True)
    biased.build(X.shape)
    assert len(biased.weights) == 6 * 2
    with pytest.raises(ValueError, match="half_window must be None"):
        ModernBertBlock(16, 2, 24, half_window=0)


def test_chunked_global_queries_equal_the_whole_score_matrix():
    whole, chunked = ModernBertBlock(16, 2, 24, query_chunk=None), ModernBertBlock(16, 2, 24, query_chunk=5)
    whole.build(X.shape)
    chunked.build(X.shape)
    chunked.set_weights(whole.get_weights())
    np.testing.assert_allclose(to_numpy(chunked(X, MASK))[MASK > 0], to_numpy(whole(X, MASK))[MASK > 0], atol=1e-5)
