"""Text with literal `[MASK]`s (fill-mask prompts) -> ids, each `[MASK]` kept as the mask id."""

import tensorflow as tf

from keras_bert.text.ragged_rows import join_rows

MASK_TOKEN = "[MASK]"


def tokenize_keeping_masks(tokenizer, texts, mask_id):
    """Tokenizes `[batch]` strings with the literal `[MASK]` kept as `mask_id` (not `[`, `mask`, `]`)."""
    parts = tf.strings.split(texts, sep=MASK_TOKEN)  # (batch, (parts))
    pieces = tf.cast(tokenizer.tokenize(parts.flat_values), tf.int32)  # (parts, (pieces))
    # Every part but the last of its text is followed by one [MASK].
    part_index = tf.range(tf.size(parts.flat_values, out_type=tf.int64))
    is_last = tf.equal(part_index + 1, tf.gather(parts.row_splits[1:], parts.value_rowids()))
    tail_lengths = 1 - tf.cast(is_last, tf.int64)
    tails = tf.RaggedTensor.from_row_lengths(
        tf.fill([tf.reduce_sum(tail_lengths)], tf.constant(mask_id, tf.int32)), tail_lengths)
    parts_with_masks = tf.concat([pieces, tails], axis=1)  # (parts, (pieces))
    return join_rows(parts.row_splits, parts_with_masks)
