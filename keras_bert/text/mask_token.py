"""Text with literal mask tokens (fill-mask prompts: `[MASK]`, `<mask>`) -> ids, each kept as the mask id."""

import tensorflow as tf

from keras_bert.text.ragged_rows import join_rows

MASK_TOKEN = "[MASK]"
SPACES_AT_END = r"[\t\n\f\r ]+$"  # RE2's \s, the same in Python's re


def mask_token_of(tokenizer):
    """The text of `tokenizer`'s mask token: its `mask_token` (`<mask>` for RoBERTa, XLM-R), else `[MASK]`."""
    return getattr(tokenizer, "mask_token", None) or MASK_TOKEN


def tokenize_keeping_masks(tokenizer, texts, mask_id):
    """Tokenizes `[batch]` strings with the literal mask token kept as `mask_id` (not `[`, `mask`, `]`).

    The spaces before a mask belong to it, as Hugging Face's `lstrip=True` `<mask>` takes them (a byte-level
    BPE would make a lone space piece of them; WordPiece ignores them anyway)."""
    parts = tf.strings.split(texts, sep=mask_token_of(tokenizer))  # (batch, (parts))
    part_index = tf.range(tf.size(parts.flat_values, out_type=tf.int64))
    is_last = tf.equal(part_index + 1, tf.gather(parts.row_splits[1:], parts.value_rowids()))
    stripped = tf.where(is_last, parts.flat_values, tf.strings.regex_replace(parts.flat_values, SPACES_AT_END, ""))
    pieces = tf.cast(tokenizer.tokenize(stripped), tf.int32)  # (parts, (pieces))
    # Every part but the last of its text is followed by one mask.
    tail_lengths = 1 - tf.cast(is_last, tf.int64)
    tails = tf.RaggedTensor.from_row_lengths(
        tf.fill([tf.reduce_sum(tail_lengths)], tf.constant(mask_id, tf.int32)), tail_lengths)
    parts_with_masks = tf.concat([pieces, tails], axis=1)  # (parts, (pieces))
    return join_rows(parts.row_splits, parts_with_masks)
