"""Packs tokenized segments into BERT encoder inputs: `[CLS] A [SEP] B [SEP]`, right padding."""

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


class Preprocessor(tf.Module):
    """Raw text (one or two segments) to `input_word_ids`, `input_mask`, `input_type_ids`.

    Args:
        tokenizer: a `keras_bert.text.Tokenizer`.
        seq_length: output length (>= 2; >= 3 for text pairs). Longer inputs are truncated.
        truncation: how pairs share the budget: `"round_robin"` (alias `"longest_first"`):
            a short segment is kept whole, two long ones split it evenly, A taking the odd
            piece — BERT's `truncate_seq_pair` (HF's Rust `longest_first` gives the odd piece
            to the longer segment instead). `"waterfall"`: A keeps all it can, B the rest.

    Example:
        >>> preprocessor = Preprocessor(Tokenizer("vocab.txt"), seq_length=8)
        >>> preprocessor(tf.constant(["Hello world"]), tf.constant(["Hi"]))["input_word_ids"]
        <tf.Tensor: shape=(1, 8), dtype=int32,
        numpy=array([[ 101, 7592, 2088,  102, 7632,  102,    0,    0]], dtype=int32)>
    """

    def __init__(self, tokenizer, seq_length=128, truncation="round_robin"):
        super().__init__(name="preprocessor")
        if truncation not in TRUNCATIONS:
            raise ValueError(
                f"truncation={truncation!r} is not supported; expected one of {sorted(TRUNCATIONS)}.")
        seq_length = int(seq_length)
        if seq_length < 2:
            raise ValueError(
                f"seq_length={seq_length} is too small: a single segment needs 2 positions for "
                "[CLS] and [SEP] (3 for pairs) plus room for text; use e.g. 128.")
        self.tokenizer = tokenizer
        self.seq_length = seq_length
        self.truncation = truncation

    def __call__(self, text_a, text_b=None):
        """Tokenizes and packs `text_a` (and `text_b`): `[batch]` strings -> int32 `[batch, seq_length]`.

        Scalar strings give `[seq_length]` outputs (handy in an unbatched `tf.data.Dataset.map`).
        """
        texts = [text_a] if text_b is None else [text_a, text_b]
        texts = [tf.convert_to_tensor(t, tf.string) for t in texts]
        if texts[0].shape.rank == 0:
            outputs = self(*[t[tf.newaxis] for t in texts])
            return {name: value[0] for name, value in outputs.items()}
        return self.pack([self.tokenizer.tokenize(t) for t in texts])

    def pack(self, segments):
        """Packs 1 or 2 ragged id tensors `[batch, (pieces)]` into encoder inputs.

        Args:
            segments: list of one or two int `tf.RaggedTensor`s with the same batch size.

        Returns:
            dict of int32 `[batch, seq_length]`: `input_word_ids` (`[CLS] A [SEP] B [SEP]`, then
            `[PAD]`), `input_mask` (1 on real tokens) and `input_type_ids` (0 for A, 1 for B).
        """
        if isinstance(segments, (tf.Tensor, tf.RaggedTensor)):
            segments = [segments]
        segments = list(segments)
        if len(segments) not in (1, 2):
            raise ValueError(
                f"pack expects 1 or 2 segments (text A, optional text B), got {len(segments)}.")
        if len(segments) == 2 and self.seq_length < 3:
            raise ValueError(
                f"seq_length={self.seq_length} is too small for a text pair: [CLS] A [SEP] B "
                "[SEP] needs at least 3 positions; use a larger seq_length.")
        segments = [s if isinstance(s, tf.RaggedTensor) else tf.RaggedTensor.from_tensor(s)
                    for s in segments]
        segments = [tf.cast(s, tf.int32) for s in segments]
        budget = self.seq_length - len(segments) - 1  # room left after [CLS] and one [SEP] each
        trimmed = TRUNCATIONS[self.truncation](budget).trim(segments)
        return self._combine(trimmed)

    def _combine(self, segments):
        # Does what `text.combine_segments` + `RaggedTensor.to_tensor` do, with dense ops only:
        # combine_segments concatenates ragged tensors, which lowers to RaggedGather, an op that
        # TFLite cannot run (measured: the converted model fails to prepare). Checked equal to
        # combine_segments in tests/text/test_preprocessor.py.
        position = tf.range(self.seq_length, dtype=tf.int32)[tf.newaxis, :]  # (1, seq)
        batch = segments[0].nrows(out_type=tf.int32)
        word_ids = tf.fill([batch, self.seq_length], tf.constant(self.tokenizer.pad_id, tf.int32))
        word_ids = tf.where(position == 0, self.tokenizer.cls_id, word_ids)  # (batch, seq)
        type_ids = tf.zeros_like(word_ids)
        start = tf.ones([batch, 1], tf.int32)  # where the current segment begins
        for type_id, segment in enumerate(segments):
            length = tf.cast(segment.row_lengths(), tf.int32)[:, tf.newaxis]  # (batch, 1)
            dense = segment.to_tensor(shape=[None, self.seq_length])  # (batch, seq)
            index = tf.clip_by_value(position - start, 0, self.seq_length - 1)  # (batch, seq)
            pieces = tf.gather(dense, index, batch_dims=1)  # (batch, seq): piece at position
            inside = (position >= start) & (position < start + length)
            word_ids = tf.where(inside, pieces, word_ids)
            word_ids = tf.where(position == start + length, self.tokenizer.sep_id, word_ids)
            type_ids = tf.where(inside | (position == start + length), type_id, type_ids)
            start = start + length + 1
        return {
            "input_word_ids": word_ids,
            "input_mask": tf.cast(position < start, tf.int32),
            "input_type_ids": type_ids,
        }
