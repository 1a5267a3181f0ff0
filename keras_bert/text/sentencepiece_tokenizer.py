"""In-graph SentencePiece tokenizer with XLM-R's fairseq ids (tf-text's `SentencepieceTokenizer`)."""

import os

import tensorflow as tf
import tensorflow_text as text

from keras_bert.compat import shared_sentencepiece_tokenizer
from keras_bert.text.offsets import bytes_to_chars
from keras_bert.text.ragged_rows import join_rows
from keras_bert.text.string_inputs import id_rows_or_row, strings_or_string
from keras_bert.text.token_list import TokenList, TokenListLookups

# Characters SentencePiece's nmt_nfkc normalization turns into its `▁` or drops: a `▁` piece's span
# skips them, as Hugging Face's offsets do.
_SPACE_LIKE = r"[\p{Z}\p{Cc}\p{Cf}]"
# XLM-R's special tokens as transformers matches them in text: each its id, `<mask>` taking the whitespace
# before it (lstrip), the text between them segmented on its own.
_SPECIALS = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
_SPECIAL_PATTERN = r"<s>|<pad>|</s>|<unk>|[\s\p{Z}]*<mask>"


class SentencepieceTokenizer(TokenListLookups, tf.Module):
    """XLM-R's SentencePiece (`sentencepiece.bpe.model`, a unigram model) in the TensorFlow graph.

    Ids are fairseq's, as XLM-R's embeddings use them: `<s>`=0, `<pad>`=1, `</s>`=2, `<unk>`=3,
    SentencePiece id + 1 for every other piece, `<mask>` last. Segmentation is the `sentencepiece`
    library's own (tf-text links it). Hugging Face's `XLMRobertaTokenizer` (transformers 5: the Rust
    converted tokenizer) differs on rare text (tools/_tokenizer_parity.py measures it): equal-score
    segmentations of long repeated words break ties differently, and its normalizer treats a few
    characters (U+0085, halfwidth voiced marks, stacked combining marks) differently. Offsets are
    character spans as Hugging Face reports them. A literal special token in text (`<mask>`, `</s>`) is
    its id as in transformers (`<mask>` takes the whitespace before it), in `tokenize` and `tokenize_with_offsets`
    alike (`_split_specials`), spanning its literal's characters.

    Args:
        model_file: the SentencePiece model (`sentencepiece.bpe.model`).
        text_config: the `TextConfig` it is made from (`text_config` returns it).

    Example:
        >>> tokenizer = SentencepieceTokenizer("sentencepiece.bpe.model")
        >>> tokenizer.tokenize(["Hello world"])  # doctest: +SKIP
    """

    pair_layout = "roberta"
    mask_token = "<mask>"
    # A capability the export formats read: no TFLite kernel, ONNX op or MediaPipe tokenizer runs this
    # tokenizer's ops (not converted), so TFLite and ONNX carry token ids only and MediaPipe refuses it.
    portable_text_ops = False
    span_keeps_space = False  # a `▁` piece's span leaves out the space it stands for (see `_pieces_with_offsets`)
    # The literal special tokens `tokenize` splits out (a regex; `special_ids` gives each its id).
    special_pattern = _SPECIAL_PATTERN

    def __init__(self, model_file, text_config=None):
        super().__init__(name="sentencepiece_tokenizer")
        self.model_file = os.fspath(model_file)
        self._text_config = text_config
        with open(self.model_file, "rb") as f:
            model = f.read()
        try:
            self._sp = shared_sentencepiece_tokenizer(model)  # survives tf.random.set_seed (compat)
            pieces = int(self._sp.vocab_size())
        except Exception:  # pylint: disable=broad-except (TensorFlow's error spans many lines)
            raise ValueError(f"{self.model_file} is not a SentencePiece model (the sentencepiece library "
                             "cannot parse it: cut or damaged?); pass the model's sentencepiece.bpe.model.") from None
        spm_pieces = [p.decode("utf-8") for p in self._sp.id_to_string(tf.range(pieces)).numpy()]
        vocab = self._vocabulary(spm_pieces)
        self.vocab_size = len(vocab)
        self._token_list = TokenList(vocab, self.model_file)  # one item for tf.Module's walk (TokenList)
        self._is_space_piece = tf.constant([t.startswith("\u2581") for t in vocab])
        self.vocab_asset = tf.saved_model.Asset(self.model_file)
        self.vocab_path = self.model_file  # `keras_bert.Tokenizer`'s name for it (messages, exports)
        self.lower_case = False  # the model's normalization holds the casing

    def _vocabulary(self, spm_pieces):
        """The model's tokens by id (fairseq's: spm id + 1 after `<s> <pad> </s> <unk>`, `<mask>` last); sets
        the special ids."""
        self.cls_id, self.pad_id, self.sep_id, self.unk_id = 0, 1, 2, 3
        self.mask_id = len(spm_pieces) + 1
        return ("<s>", "<pad>", "</s>", "<unk>", *spm_pieces[3:], "<mask>")

    def _to_spm(self, ids):
        """The model's ids of real pieces -> SentencePiece's."""
        return ids - 1

    @property
    def continues_word(self):
        """Per id: the piece continues the word before it (no leading `▁`; special ids never)."""
        return [3 < i < self.mask_id and not t.startswith("\u2581") for i, t in enumerate(self._token_list.tokens)]

    def _from_spm(self, spm_ids):
        """SentencePiece ids -> the model's (fairseq's: + 1; its unknown piece 0 is `<unk>`=3)."""
        return tf.where(spm_ids == 0, self.unk_id, spm_ids + 1)

    @strings_or_string
    def tokenize(self, texts, max_pieces=None):
        """Text to ids: `[batch]` strings -> int32 `[batch, (pieces)]`; scalar -> `[(pieces)]`.
        `max_pieces` (the interface's: only the first ids are wanted) changes nothing: the `sentencepiece`
        library segments the whole text, linear in its length (1 MB in ~0.4 s, a fifth of Hugging Face's)."""
        del max_pieces
        texts = _valid(texts)
        special = tf.strings.regex_full_match(texts, f"(?s).*(?:{self.special_pattern}).*")  # [b]
        plain_index, special_index = tf.where(~special)[:, 0], tf.where(special)[:, 0]
        plain = tf.ragged.map_flat_values(self._from_spm, self._sp.tokenize(tf.gather(texts, plain_index)))
        ids = tf.concat([plain, self._with_specials(tf.gather(texts, special_index))], 0)
        return tf.gather(ids, tf.math.invert_permutation(tf.concat([plain_index, special_index], 0)))

    def special_ids(self):
        """`{literal special token: its id}` of every special `special_pattern` matches but the mask token."""
        return _SPECIALS

    def _split_specials(self, texts):
        """The one rule both `tokenize` and `tokenize_with_offsets` read literal special tokens by, as transformers
        splits them out: `[b]` valid texts -> (segments `[b, (s)]`, is_special `[S]`, its id `[S]`, its literal
        without the whitespace `<mask>` took `[S]`). The segments cover each text, the specials and the text
        between them."""
        # RE2 stops at NUL: it is split as U+FDD0 (a noncharacter, not met in text) and put back.
        safe = tf.strings.regex_replace(texts, r"\x00", "\ufdd0")
        segments = text.regex_split(safe, self.special_pattern, self.special_pattern)  # [b, (s)]
        flat = tf.strings.regex_replace(segments.flat_values, "\ufdd0", "\x00")
        is_special = tf.strings.regex_full_match(flat, self.special_pattern)
        token = tf.strings.regex_replace(flat, r"^[\s\p{Z}]+", "")  # `<mask>` without the whitespace it took
        special_id = tf.fill(tf.shape(flat), tf.cast(self.mask_id, tf.int32))
        for name, i in self.special_ids().items():
            special_id = tf.where(tf.equal(token, name), i, special_id)
        return segments.with_flat_values(flat), is_special, special_id, token

    def _with_specials(self, texts):
        """`tokenize` of texts holding a literal special token: `[b]` -> `[b, (pieces)]`."""
        segments, is_special, special_id, _ = self._split_specials(texts)
        plain = tf.where(is_special, "", segments.flat_values)
        pieces = tf.ragged.map_flat_values(self._from_spm, self._sp.tokenize(plain))  # [S, (p)]
        specials = tf.RaggedTensor.from_row_lengths(tf.boolean_mask(special_id, is_special),
                                                    tf.cast(is_special, tf.int64))  # [S, (0 or 1)]
        return join_rows(segments.row_splits, tf.concat([pieces, specials], 1))  # [b, (p)]

    @strings_or_string
    def tokenize_words(self, texts):
        """Ids grouped by word (a `▁` piece starts one): `[batch]` -> `[batch, (words), (pieces)]`."""
        ids = self.tokenize(texts)
        return _by_word(ids, ids, self._is_space_piece)

    @strings_or_string
    def tokenize_with_offsets(self, texts):
        """Ids grouped by word with every piece's character span `[start, end)` in the text. A literal special
        token is its id (as in `tokenize`) spanning the literal's characters (not the whitespace `<mask>` took).

        Returns:
            `(ids, starts, ends)` of shape `[batch, (words), (pieces)]` (int32, int64, int64).
        """
        segments, is_special, special_id, token = self._split_specials(_valid(texts))
        flat = segments.flat_values  # [S]
        ids, starts, ends = self._pieces_with_offsets(tf.where(is_special, "", flat))  # [S, (p)], [P], [P]
        length = tf.cast(tf.strings.length(flat, unit="UTF8_CHAR"), tf.int64)  # [S] characters
        before = tf.cumsum(length, exclusive=True)
        segment_start = before - tf.gather(before, tf.gather(segments.row_starts(), segments.value_rowids()))
        shift = tf.gather(segment_start, ids.value_rowids())
        literal = tf.cast(tf.strings.length(token, unit="UTF8_CHAR"), tf.int64)
        one = lambda values: tf.RaggedTensor.from_row_lengths(  # noqa: E731
            tf.boolean_mask(values, is_special), tf.cast(is_special, tf.int64))  # [S, (0 or 1)]
        rows = [tf.concat([ids, one(special_id)], 1),
                tf.concat([ids.with_flat_values(starts + shift), one(segment_start + length - literal)], 1),
                tf.concat([ids.with_flat_values(ends + shift), one(segment_start + length)], 1)]
        ids, starts, ends = (join_rows(segments.row_splits, r) for r in rows)  # [b, (p)]
        return tuple(_by_word(ids, v, self._is_space_piece) for v in (ids, starts, ends))

    def _pieces_with_offsets(self, texts):
        """Segmentation of texts holding no special token with Hugging Face's character spans: `[n]` ->
        (ids `[n, (p)]`, starts `[P]`, ends `[P]`)."""
        ids, byte_starts, byte_ends = self._sp.tokenize_with_offsets(texts)  # [n, (p)]
        ids = tf.ragged.map_flat_values(self._from_spm, ids)
        starts, ends = bytes_to_chars(texts, byte_starts, byte_ends)  # [P]
        # Hugging Face's spans: a `▁` piece starts after the spaces its `▁` stands for (XLM-R), or at the last of
        # them (DeBERTa-v3: `span_keeps_space`), and an empty span (a `▁` of spaces only, the 2nd+ piece of one
        # expanded character) is the next character.
        chars = tf.strings.unicode_split(texts, "UTF-8")  # [n, (c)]
        text_start = tf.gather(chars.row_starts(), ids.value_rowids())  # [P]
        space_like = tf.strings.regex_full_match(chars.flat_values, _SPACE_LIKE)  # [N]
        solid = tf.where(~space_like)[:, 0]
        solid = tf.concat([solid, [tf.size(chars.flat_values, tf.int64)]], 0)
        first_solid = tf.gather(solid, tf.searchsorted(solid, starts + text_start)) - text_start
        if self.span_keeps_space:  # the space before the piece's first solid character, where there is one
            before = tf.gather(space_like, tf.maximum(first_solid + text_start - 1, 0))
            first_solid -= tf.cast((first_solid > 0) & before, tf.int64)
        spaced = tf.gather(self._is_space_piece, ids.flat_values)
        starts = tf.where(spaced, tf.minimum(first_solid, ends), starts)
        length = tf.gather(chars.row_lengths(), ids.value_rowids())
        ends = tf.where(starts == ends, tf.minimum(starts + 1, length), ends)
        return ids, starts, ends

    @id_rows_or_row
    def detokenize(self, ids):
        """Ids back to text (special ids dropped): `[batch, (pieces)]` -> `[batch]`; rank 1 -> scalar."""
        ids = tf.ragged.boolean_mask(ids, (ids > self.unk_id) & (ids < self.mask_id))
        return self._sp.detokenize(self._to_spm(ids))


def _valid(texts):
    return tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace", replacement_char=0xFFFD)


def _by_word(ids, values, starts_word):
    """`values` `[b, (p)]` (shaped as `ids`) -> `[b, (w), (p)]`: a word starts at a `▁` piece (and
    at each text's first piece)."""
    first = tf.equal(tf.range(tf.size(ids.flat_values, tf.int64)),
                     tf.gather(ids.row_starts(), ids.value_rowids()))
    flags = tf.gather(starts_word, ids.flat_values) | first  # [P]
    words = tf.RaggedTensor.from_row_starts(values.flat_values, tf.where(flags)[:, 0])  # [W, (p)]
    per_text = tf.math.unsorted_segment_sum(tf.cast(flags, tf.int64), ids.value_rowids(), ids.nrows())
    return tf.RaggedTensor.from_row_lengths(words, per_text)
