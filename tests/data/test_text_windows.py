"""data/text_windows.py: run_squad.py's doc spans over long texts, and window outputs per document."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.text_windows import aggregate_windows, split_windows, window_spans


def test_windows_overlap_by_the_stride_and_the_last_reaches_the_end():
    windows, document = split_windows(tf.ragged.constant([[1, 2, 3, 4, 5, 6], [7], []]), 4, 2)
    assert windows.to_list() == [[1, 2, 3, 4], [3, 4, 5, 6], [7], []]
    assert document.numpy().tolist() == [0, 0, 1, 2]


def test_a_stride_above_the_window_skips_no_piece():
    document, start, length = window_spans(tf.constant([7]), 3, 10)
    assert document.numpy().tolist() == [0, 0, 0]
    assert start.numpy().tolist() == [0, 3, 6] and length.numpy().tolist() == [3, 3, 1]


def test_a_window_length_per_text():
    _, start, length = window_spans(tf.constant([5, 5]), tf.constant([5, 2]), 2)
    assert start.numpy().tolist() == [0, 0, 2, 4] and length.numpy().tolist() == [5, 2, 2, 1]


def test_aggregate_mean_and_max_per_document():
    values = tf.constant([[1.0, 4.0], [3.0, 0.0], [5.0, 5.0]])
    document = tf.constant([0, 0, 1])
    np.testing.assert_allclose(aggregate_windows(values, document, 2), [[2, 2], [5, 5]])
    np.testing.assert_allclose(aggregate_windows(values, document, 2, "max"), [[3, 4], [5, 5]])
    with pytest.raises(ValueError, match=r"aggregate='sum' \(--aggregate\) is not one of"):
        aggregate_windows(values, document, 2, "sum")
