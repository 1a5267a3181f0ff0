"""The one packer: 1 or 2 segments -> `[CLS] A [SEP] B [SEP]`, type ids, mask, right padding
(or RoBERTa / XLM-R's `<s> A </s></s> B </s>`, one token type: `layout="roberta"`).

Used by the `Preprocessor`, NSP pretraining, token classification, SQuAD and fill-mask, so
every path lays out encoder inputs the same way. Dense core ops only, so it converts to TFLite
and runs in every TF Serving release that links the tokenizer's ops (no tf-text trimmer kernel).
"""

import tensorflow as tf


def round_robin_lengths(lengths, budget):
    """Pieces each of 1 or 2 segments keeps when `budget` pieces are dealt one at a time, A, B,
    A, ...: what tf-text's `RoundRobinTrimmer` keeps (a short segment whole, two long ones
    sharing the budget, A taking the odd piece) and BERT's `truncate_seq_pair` (pop from the
    longer, ties from B). `lengths`: int32 tensors of any equal shape (a batch, or one example).

    Core TF ops on purpose, not the trimmer: since tf-text 2.13 it is the `TFText>RoundRobinTrim`
    kernel, which TF Serving 2.12 to 2.19.1 lack (they link tf-text 2.12.1: `Op type not
    registered`); this converts to TFLite builtins. Tested equal to `RoundRobinTrimmer`
    (tests/text/test_trimming.py).
    """
    budget = tf.maximum(budget, 0)
    if len(lengths) == 1:
        return [tf.minimum(lengths[0], budget)]
    len_a, len_b = lengths
    # A's operand first: a TFLite pair of mismatched batches then fails naming shapes [len(A)] and [len(B)].
    keep_b = tf.minimum(tf.maximum(budget // 2, budget - len_a), len_b)
    return [tf.minimum(len_a, budget - keep_b), keep_b]


def waterfall_lengths(lengths, budget):
    """Pieces each segment keeps when A keeps all it can and B gets what is left (tf-text's
    `WaterfallTrimmer`; core ops, as `round_robin_lengths`)."""
    budget, kept = tf.maximum(budget, 0), []
    for length in lengths:
        kept.append(tf.minimum(length, budget))
        budget = budget - kept[-1]
    return kept


# Round robin keeps exactly what BERT's `truncate_seq_pair` keeps, hence also the "longest_first" name.
TRUNCATIONS = {
    "round_robin": round_robin_lengths,
    "longest_first": round_robin_lengths,
    "waterfall": waterfall_lengths,  # A keeps all it can, B gets what is left
}


def check_truncation(truncation):
    """Raises a one-line ValueError unless `truncation` names a supported strategy."""
    if truncation not in TRUNCATIONS:
        raise ValueError(
            f"truncation={truncation!r} is not supported; expected one of {sorted(TRUNCATIONS)}.")


PADDINGS = ("max_length", "longest")
# Separators after each segment of a pair, and whether B gets token type 1 ("bert_one_type": BERT's separators in
# a model with one token type row, DistilBERT and ModernBERT: every type id 0, as their transformers tokenizers give).
LAYOUTS = {"bert": ((1, 1), True), "roberta": ((2, 1), False), "bert_one_type": ((1, 1), False)}


def pair_specials(layout="bert"):
    """`(specials before B, specials of a pair)` in `layout`: (2, 3) for `[CLS] A [SEP] B [SEP]`,
    (3, 4) for `<s> A </s></s> B </s>` (a question's context starts after A and the first of these)."""
    check_layout(layout)
    return 1 + LAYOUTS[layout][0][0], 1 + sum(LAYOUTS[layout][0])


def check_layout(layout):
    """Raises a one-line ValueError unless `layout` names a supported packing."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} is not supported; expected one of {sorted(LAYOUTS)}.")


def check_padding(padding):
    """Raises a one-line ValueError unless `padding` names a supported width."""
    if padding not in PADDINGS:
        raise ValueError(f"padding={padding!r} is not supported; expected one of {PADDINGS}.")


def pack_segments(segments, seq_length, cls_id, sep_id, pad_id=0, truncation="round_robin",
                  padding="max_length", layout="bert"):
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
        layout: "bert" (`[CLS] A [SEP] B [SEP]`, B's type id 1), "bert_one_type" (the same, every type id
            0: DistilBERT, ModernBERT) or "roberta" (`<s> A </s></s> B </s>`, every type id 0: RoBERTa,
            XLM-R); the tokenizer's `pair_layout`, as the model's family sets it (`bind_pair_layout`).

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
    check_layout(layout)
    separators = LAYOUTS[layout][0][:len(segments)] if len(segments) == 2 else (1,)
    if isinstance(seq_length, int) and seq_length < sum(separators) + 1:
        layout = "a text pair: [CLS] A [SEP] B [SEP]" if len(segments) == 2 else "[CLS] A [SEP]"
        raise ValueError(f"seq_length={seq_length} is too small for {layout} needs at least "
                         f"{sum(separators) + 1} positions; use a larger seq_length.")
    segments = [s if isinstance(s, tf.RaggedTensor) else tf.RaggedTensor.from_tensor(s)
                for s in segments]
    segments = _same_batch_size([tf.cast(s, tf.int32) for s in segments])
    lengths = [tf.cast(s.row_lengths(), tf.int32) for s in segments]  # (batch,) each
    if truncation is not None:
        check_truncation(truncation)
        budget = seq_length - sum(separators) - 1  # room left after [CLS] and the [SEP]s
        lengths = TRUNCATIONS[truncation](lengths, budget)  # pieces kept: a prefix of each row
    check_padding(padding)
    if padding == "longest":
        seq_length = _longest(lengths, seq_length, separators)
    return _combine(segments, lengths, seq_length, cls_id, sep_id, pad_id, separators,
                    LAYOUTS[layout][1])


def trim_padding(features, keep=()):
    """Cuts the trailing columns that no row of packed `features` uses (each `[batch, seq]`,
    with `input_mask`): a batch packed to `seq_length` then padded to its longest row, as
    `padding="longest"` packs it. Entries named in `keep` (not per position) pass unchanged."""
    length = tf.reduce_max(tf.reduce_sum(features["input_mask"], axis=1))
    return {k: v if k in keep else v[:, :length] for k, v in features.items()}


def _longest(lengths, seq_length, separators):
    """The longest packed row: kept pieces of every segment, `[CLS]` and the `[SEP]`s (a
    scalar tensor, at most `seq_length`; the minimal layout for an empty batch)."""
    packed = sum(lengths) + sum(separators) + 1  # (batch,)
    longest = tf.reduce_max(tf.concat([packed, [sum(separators) + 1]], axis=0))
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


def _combine(segments, lengths, seq_length, cls_id, sep_id, pad_id, separators=(1, 1), typed=True):
    # Does what `text.combine_segments` + `RaggedTensor.to_tensor` do, with dense ops only:
    # combine_segments concatenates ragged tensors, which lowers to RaggedGather, an op that
    # TFLite cannot run (measured: the converted model fails to prepare). Checked equal to
    # combine_segments in tests/text/test_preprocessor.py. Row i of a segment keeps its first
    # lengths[i] pieces (the trimming).
    position = tf.range(seq_length, dtype=tf.int32)[tf.newaxis, :]  # (1, seq)
    batch = segments[0].nrows(out_type=tf.int32)
    word_ids = tf.fill([batch, seq_length], tf.constant(pad_id, tf.int32))
    word_ids = tf.where(position == 0, tf.constant(cls_id, tf.int32), word_ids)  # (batch, seq)
    type_ids = tf.zeros_like(word_ids)
    start = tf.ones([batch, 1], tf.int32)  # where the current segment begins
    width = [None, seq_length] if isinstance(seq_length, int) else tf.stack([-1, seq_length])
    for index, (segment, kept, seps) in enumerate(zip(segments, lengths, separators)):
        type_id = index if typed else 0
        length = kept[:, tf.newaxis]  # (batch, 1)
        dense = segment.to_tensor(shape=width)  # (batch, seq)
        index = tf.clip_by_value(position - start, 0, seq_length - 1)  # (batch, seq)
        pieces = tf.gather(dense, index, batch_dims=1)  # (batch, seq): piece at position
        inside = (position >= start) & (position < start + length)
        word_ids = tf.where(inside, pieces, word_ids)
        sep = (position >= start + length) & (position < start + length + seps)
        word_ids = tf.where(sep, tf.constant(sep_id, tf.int32), word_ids)
        type_ids = tf.where(inside | sep, type_id, type_ids)
        start = start + length + seps
    return {
        "input_word_ids": word_ids,
        "input_mask": tf.cast(position < start, tf.int32),
        "input_type_ids": type_ids,
    }
