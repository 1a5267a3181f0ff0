import tensorflow as tf

from keras_bert.text.ragged_rows import join_rows


def test_join_rows_equals_merge_dims_with_empty_rows_and_groups():
    nested = tf.ragged.constant([[[1, 2], [], [3]], [], [[4]], [[], []], [[5, 6, 7]]])  # [b, (w), (p)]
    joined = join_rows(nested.row_splits, nested.values)
    assert joined.to_list() == nested.merge_dims(1, 2).to_list() == [[1, 2, 3], [], [4], [], [5, 6, 7]]


def test_join_rows_in_a_graph_with_unknown_shapes():
    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None, None], tf.int32, ragged_rank=2)])
    def join(nested):
        return join_rows(nested.row_splits, nested.values)

    nested = tf.ragged.constant([[[1], [2, 3]], [[4, 5]]], tf.int32)
    assert join(nested).to_list() == [[1, 2, 3], [4, 5]]
