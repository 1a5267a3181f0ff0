"""layers/gather_rows.py: each example's rows at its own positions, as take_along_axis gives them."""

import numpy as np
from keras import ops

from keras_bert.layers.gather_rows import gather_rows


def test_gather_rows_takes_each_examples_own_positions():
    sequence = np.arange(2 * 5 * 3, dtype="float32").reshape(2, 5, 3)
    positions = np.array([[0, 4], [3, 3]], dtype="int64")
    rows = ops.convert_to_numpy(gather_rows(sequence, positions))
    assert rows.shape == (2, 2, 3)
    np.testing.assert_array_equal(rows, np.take_along_axis(sequence, positions[:, :, None], axis=1))
    np.testing.assert_array_equal(rows[1, 0], sequence[1, 3])  # the second example's row, not the first's


def test_gather_rows_of_a_rank_two_sequence():
    sequence = np.array([[1, 2, 3], [4, 5, 6]], dtype="int32")
    rows = ops.convert_to_numpy(gather_rows(sequence, np.array([[2], [0]])))
    np.testing.assert_array_equal(rows, [[3], [4]])
