"""The one packer: 1 or 2 segments -> `[CLS] A [SEP] B [SEP]`, type ids, mask, right padding.

Used by the `Preprocessor`, NSP pretraining, token classification, SQuAD and fill-mask, so
every path lays out encoder inputs the same way. Dense ops only, so it converts to TFLite.
"""

import tensorflow as tf
import tensorflow_text as text

# Round robin (one piece from A, one from B, ...) keeps exactly what BERT's `truncate_seq_pair`
# keeps (pop from the longer segment, ties from B), hence also the "longest_first" name; its
# trimmer converts to TFLite, the others (UnsortedSegmentSum) do not.
TRUNCATIONS = {
    "round_robin": text.RoundRobinTrimmer,
    "longest_first": text.RoundRobinTrimmer,
    "waterfall": text.WaterfallTrimmer,  # A keeps all it can, B gets what is left
}


def check_truncation(truncation):
    """Raises a one-line ValueError unless `truncation` names a supported strategy."""
    if truncation not in TRUNCATIONS:
        raise ValueError(
            f"truncation={truncation!r} is not supported; expected one of {sorted(TRUNCATIONS)}.")


PADDINGS = ("max_length", "longest")


def check_padding(padding):
    """Raises a one-line ValueError unless `padding` names a supported width."""
    if padding not in PADDINGS:
        raise ValueError(f"padding={padding!r} is not supported; expected one of {PADDINGS}.")


def pack_segments(segments, seq_length, cls_id, sep_id, pad_id=0, truncation="round_robin",
                  padding="max_length"):
    """Packs 1 or 2 id segments `[batch, (pieces)]` into BERT encoder inputs.

    Args:
        segments: one or a list of one or two int `tf.RaggedTensor`s (dense tensors count
            every entry as a piece) with the same batch size.
        seq_length: the longest output; pieces beyond `seq_length - 1 - len(segments)` are trimmed.
        cls_id, sep_id, pad_id: the ids written at `[CLS]`, `[SEP]` and padding positions
            (pass 0s to pack per-piece labels or weights alongside the ids).
        truncation: how pairs share the budget (see `TRUNCATIONS`), or None when the caller
            already made the segments fit (NSP, SQuAD windows).
        padding: "max_length": every row padded to `seq_length` (a fixed shape: training,
            XLA); "longest": to the batch's longest packed row, at most `seq_length` (serving:
            the encoder runs on no column that every row pads).

    Returns:
        dict of int32 `[batch, seq_length]` (`[batch, longest]` with `padding="longest"`): `input_word_ids`, `input_mask` (1 on `[CLS]`,
        pieces and `[SEP]`s) and `input_type_ids` (0 for A and its `[SEP]`, 1 for B and its).

    Example:
        >>> pack_segments([tf.ragged.constant([[7, 8]]), tf.ragged.constant([[9]])], 8, 101, 102)
        {'input_word_ids': <... numpy=array([[101, 7, 8, 102, 9, 102, 0, 0]], dtype=int32)>, ...}
    """
    if isinstance(segments, (tf.Tensor, tf.RaggedTensor)):
        segments = [segments]
    segments = list(segments)
    if len(segments) not in (1, 2):
        raise ValueError(
            f"pack expects 1 or 2 segments (text A, optional text B), got {len(segments)}.")
    if not isinstance(seq_length, tf.Tensor):  # a tensor: TF Hub's bert_pack_inputs(seq_length=), export/hub.py
        seq_length = int(seq_length)
    if isinstance(seq_length, int) and seq_length < len(segments) + 1:
        layout = "a text pair: [CLS] A [SEP] B [SEP]" if len(segments) == 2 else "[CLS] A [SEP]"
        raise ValueError(f"seq_length={seq_length} is too small for {layout} needs at least "
                         f"{len(segments) + 1} positions; use a larger seq_length.")
    segments = [s if isinstance(s, tf.RaggedTensor) else tf.RaggedTensor.from_tensor(s)
                for s in segments]
    segments = _same_batch_size([tf.cast(s, tf.int32) for s in segments])
    if truncation is not None:
        check_truncation(truncation)
        budget = seq_length - len(segments) - 1  # room left after [CLS] and one [SEP] each
        segments = TRUNCATIONS[truncation](budget).trim(segments)
    check_padding(padding)
    if padding == "longest":
        seq_length = _longest(segments, seq_length)
    return _combine(segments, seq_length, cls_id, sep_id, pad_id)


def trim_padding(features, keep=()):
    """Cuts the trailing columns that no row of packed `features` uses (each `[batch, seq]`,
    with `input_mask`): a batch packed to `seq_length` then padded to its longest row, as
    `padding="longest"` packs it. Entries named in `keep` (not per position) pass unchanged."""
    length = tf.reduce_max(tf.reduce_sum(features["input_mask"], axis=1))
    return {k: v if k in keep else v[:, :length] for k, v in features.items()}


def _longest(segments, seq_length):
    """The longest packed row: pieces of every segment, `[CLS]` and one `[SEP]` each (a scalar
    tensor, at most `seq_length`; the minimal layout for an empty batch)."""
    lengths = sum(tf.cast(s.row_lengths(), tf.int32) for s in segments) + len(segments) + 1  # (batch,)
    longest = tf.reduce_max(tf.concat([lengths, [len(segments) + 1]], axis=0))
    return tf.minimum(longest, seq_length)


def _same_batch_size(segments):
    """Refuses segments whose batch sizes differ (the trimmer reads out of bounds: SIGSEGV)."""
    if len(segments) == 1:
        return segments
    a, b = (s.nrows() for s in segments)
    known_a, known_b = tf.get_static_value(a), tf.get_static_value(b)  # eager, or static shapes
    if known_a is not None and known_b is not None:
        if known_a != known_b:
            raise ValueError(f"text_a has {known_a} rows but text_b has {known_b}; pass one text_b "
                             "per text_a (same batch size), or no text_b.")
        return segments
    # `Assert`, not `assert_equal`: the same error in 4 graph ops instead of 58.
    check = tf.debugging.Assert(tf.equal(a, b), [
        "text_a and text_b must have the same batch size (one text_b per text_a); got", a, b])
    with tf.control_dependencies([check]):  # the trimmer must not run before the check
        return [tf.RaggedTensor.from_row_splits(tf.identity(s.values), tf.identity(s.row_splits),
                                                validate=False) for s in segments]


def _combine(segments, seq_length, cls_id, sep_id, pad_id):
    # Does what `text.combine_segments` + `RaggedTensor.to_tensor` do, with dense ops only:
    # combine_segments concatenates ragged tensors, which lowers to RaggedGather, an op that
    # TFLite cannot run (measured: the converted model fails to prepare). Checked equal to
    # combine_segments in tests/text/test_preprocessor.py.
    position = tf.range(seq_length, dtype=tf.int32)[tf.newaxis, :]  # (1, seq)
    batch = segments[0].nrows(out_type=tf.int32)
    word_ids = tf.fill([batch, seq_length], tf.constant(pad_id, tf.int32))
    word_ids = tf.where(position == 0, tf.constant(cls_id, tf.int32), word_ids)  # (batch, seq)
    type_ids = tf.zeros_like(word_ids)
    start = tf.ones([batch, 1], tf.int32)  # where the current segment begins
    width = [None, seq_length] if isinstance(seq_length, int) else tf.stack([-1, seq_length])
    for type_id, segment in enumerate(segments):
        length = tf.cast(segment.row_lengths(), tf.int32)[:, tf.newaxis]  # (batch, 1)
        dense = segment.to_tensor(shape=width)  # (batch, seq)
        index = tf.clip_by_value(position - start, 0, seq_length - 1)  # (batch, seq)
        pieces = tf.gather(dense, index, batch_dims=1)  # (batch, seq): piece at position
        inside = (position >= start) & (position < start + length)
        word_ids = tf.where(inside, pieces, word_ids)
        word_ids = tf.where(position == start + length, tf.constant(sep_id, tf.int32), word_ids)
        type_ids = tf.where(inside | (position == start + length), type_id, type_ids)
        start = start + length + 1
    return {
        "input_word_ids": word_ids,
        "input_mask": tf.cast(position < start, tf.int32),
        "input_type_ids": type_ids,
    }
