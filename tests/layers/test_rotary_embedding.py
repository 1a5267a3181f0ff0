"""Rotary embeddings: transformers' frequencies, a rotation (norm kept), relative positions in the scores."""

import numpy as np

from keras_bert.layers.rotary_embedding import apply_rotary, rotary_cos_sin, rotary_inverse_frequencies
from tests.layers.layer_checks import to_numpy


def test_frequencies_are_the_default_rope_ones():
    np.testing.assert_allclose(rotary_inverse_frequencies(8, 10000.0),
                               [1.0, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75], rtol=1e-6)


def test_rotation_keeps_norms_and_scores_depend_on_relative_position_only():
    rng = np.random.default_rng(0)
    q, k = (rng.normal(size=(1, 1, 1, 8)).astype("float32") for _ in range(2))
    cos, sin = rotary_cos_sin(12, 8, 160000.0)
    rotated = to_numpy(apply_rotary(np.repeat(q, 12, axis=2), cos, sin))  # q at positions 0..11
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=-1), np.linalg.norm(q), rtol=1e-5)
    keys = to_numpy(apply_rotary(np.repeat(k, 12, axis=2), cos, sin))
    score = lambda i, j: float(rotated[0, 0, i] @ keys[0, 0, j])  # noqa: E731
    assert abs(score(3, 1) - score(9, 7)) < 1e-4 and abs(score(3, 1) - score(3, 2)) > 1e-4
    np.testing.assert_allclose(rotated[0, 0, 0], q[0, 0, 0], atol=1e-7)  # position 0: no rotation


def test_packed_positions_read_the_table_at_each_token_position():
    """`positions` `[batch, seq]` (restarting per packed example): `(batch, 1, seq, d)` tables, the rows of the
    plain table at those positions."""
    positions = np.array([[0, 1, 2, 0, 1, 0], [0, 1, 2, 3, 4, 5]], "int32")
    table = [to_numpy(t) for t in rotary_cos_sin(6, 8, 10000.0)]
    packed = [to_numpy(t) for t in rotary_cos_sin(6, 8, 10000.0, positions)]
    for plain, at_positions in zip(table, packed):
        assert at_positions.shape == (2, 1, 6, 8)
        np.testing.assert_array_equal(at_positions[:, 0], plain[positions])
