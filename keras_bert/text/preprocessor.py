"""Raw text (one or two segments) -> BERT encoder inputs, via the tokenizer and the one packer."""

import tensorflow as tf

from keras_bert.text.packer import check_padding, check_truncation, pack_segments
from keras_bert.text.string_inputs import as_strings


class Preprocessor(tf.Module):
    """Raw text (one or two segments) to `input_word_ids`, `input_mask`, `input_type_ids`.

    Args:
        tokenizer: a `keras_bert.text.Tokenizer` (or `ByteBpeTokenizer`, `SentencepieceTokenizer`:
            their `pair_layout` packs `<s> A </s></s> B </s>`).
        seq_length: output length (>= 2; >= 3 for text pairs), the longest with
            `padding="longest"`. Longer inputs are truncated.
        truncation: how pairs share the budget: `"round_robin"` (alias `"longest_first"`):
            a short segment is kept whole, two long ones split it evenly, A taking the odd
            piece — BERT's `truncate_seq_pair` (HF's Rust `longest_first` gives the odd piece
            to the longer segment instead). `"waterfall"`: A keeps all it can, B the rest.
        padding: `"max_length"`: every batch padded to `seq_length` (a fixed shape);
            `"longest"`: to the batch's longest text (serving: no work on shared padding).

    Example:
        >>> preprocessor = Preprocessor(Tokenizer("vocab.txt"), seq_length=8)
        >>> preprocessor(tf.constant(["Hello world"]), tf.constant(["Hi"]))["input_word_ids"]
        <tf.Tensor: shape=(1, 8), dtype=int32,
        numpy=array([[ 101, 7592, 2088,  102, 7632,  102,    0,    0]], dtype=int32)>
    """

    def __init__(self, tokenizer, seq_length=128, truncation="round_robin", padding="max_length"):
        super().__init__(name="preprocessor")
        check_truncation(truncation)
        check_padding(padding)
        seq_length = int(seq_length)
        if seq_length < 2:
            raise ValueError(
                f"seq_length={seq_length} is too small: a single segment needs 2 positions for "
                "[CLS] and [SEP] (3 for pairs) plus room for text; use e.g. 128.")
        self.tokenizer = tokenizer
        self.seq_length = seq_length
        self.truncation = truncation
        self.padding = padding

    def __call__(self, text_a, text_b=None):
        """Tokenizes and packs `text_a` (and `text_b`): `[batch]` strings -> int32 `[batch, seq_length]`
        (`[batch, longest]` with `padding="longest"`).

        Scalar strings give `[seq_length]` outputs (handy in an unbatched `tf.data.Dataset.map`).
        """
        texts = [text_a] if text_b is None else [text_a, text_b]
        texts = [as_strings(t, name) for t, name in zip(texts, ("text_a", "text_b"))]
        if len(texts) == 2 and texts[0].shape.rank != texts[1].shape.rank:
            raise ValueError(
                f"text_a has shape {texts[0].shape} but text_b has shape {texts[1].shape}; pass "
                "both as scalars or both as [batch] vectors of the same size.")
        if texts[0].shape.rank == 0:
            outputs = self(*[t[tf.newaxis] for t in texts])
            return {name: value[0] for name, value in outputs.items()}
        # A segment keeps at most seq_length pieces: the tokenizer needs to find no more (a long text's cost).
        return self.pack([self.tokenizer.tokenize(t, max_pieces=self.seq_length) for t in texts])

    def pack(self, segments):
        """Packs 1 or 2 ragged id tensors `[batch, (pieces)]` into encoder inputs.

        Args:
            segments: list of one or two int `tf.RaggedTensor`s with the same batch size.

        Returns:
            dict of int32 `[batch, seq_length]` (or `[batch, longest]`): `input_word_ids` (`[CLS] A [SEP] B [SEP]`, then
            `[PAD]`), `input_mask` (1 on real tokens) and `input_type_ids` (0 for A, 1 for B).
        """
        return pack_segments(segments, self.seq_length, self.tokenizer.cls_id,
                             self.tokenizer.sep_id, self.tokenizer.pad_id, self.truncation, self.padding,
                             layout=getattr(self.tokenizer, "pair_layout", "bert"))
