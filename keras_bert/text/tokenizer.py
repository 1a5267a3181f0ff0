"""In-graph BERT WordPiece tokenizer (tensorflow-text), matching Hugging Face's BertTokenizerFast."""

import functools
import os
import re

import tensorflow as tf
import tensorflow_text as text

from keras_bert.text.vocab import SPECIAL_TOKENS, load_vocab, special_token_ids

NORMALIZATIONS = ("reference", "fast")

# Hugging Face `tokenizers` classifies characters with older Unicode tables (its
# `unicode_categories` crate) than TensorFlow's RE2, so characters that later Unicode versions
# added or re-categorized are treated differently. These classes list them: derived by comparing
# `BertNormalizer`/`BertPreTokenizer` with the patterns below on every code point, and verified
# by tests/text/test_tokenizer_unicode.py (which prints the ranges to update if a library moves).
# Format/control characters (Cf) that tokenizers keeps:
_HF_KEPT_FORMAT = r"\x{890}-\x{891}\x{8E2}\x{110CD}\x{13430}-\x{1343F}"
# Marks (Mn) that tokenizers does not strip, and one (Mc today, Mn in old Unicode) that it does:
_HF_KEPT_MARKS = (
    r"\x{7FD}\x{898}-\x{89F}\x{8CA}-\x{8E1}\x{9FE}\x{AFA}-\x{AFF}\x{B55}\x{C04}\x{C3C}"
    r"\x{D00}\x{D3B}-\x{D3C}\x{D81}\x{EBA}\x{ECE}\x{180F}\x{1885}-\x{1886}"
    r"\x{1ABF}-\x{1ACE}\x{1DF6}-\x{1DFB}\x{A82C}\x{A8C5}\x{A8FF}\x{A9BD}"
    r"\x{10D24}-\x{10D27}\x{10EAB}-\x{10EAC}\x{10EFD}-\x{10EFF}\x{10F46}-\x{10F50}"
    r"\x{10F82}-\x{10F85}\x{11070}\x{11073}-\x{11074}\x{110C2}\x{111C9}\x{111CF}\x{1123E}"
    r"\x{11241}\x{1133B}\x{11438}-\x{1143F}\x{11442}-\x{11444}\x{11446}\x{1145E}"
    r"\x{1182F}-\x{11837}\x{11839}-\x{1183A}\x{1193B}-\x{1193C}\x{1193E}\x{11943}"
    r"\x{119D4}-\x{119D7}\x{119DA}-\x{119DB}\x{119E0}\x{11A01}-\x{11A0A}"
    r"\x{11A33}-\x{11A38}\x{11A3B}-\x{11A3E}\x{11A47}\x{11A51}-\x{11A56}"
    r"\x{11A59}-\x{11A5B}\x{11A8A}-\x{11A96}\x{11A98}-\x{11A99}\x{11C30}-\x{11C36}"
    r"\x{11C38}-\x{11C3D}\x{11C3F}\x{11C92}-\x{11CA7}\x{11CAA}-\x{11CB0}"
    r"\x{11CB2}-\x{11CB3}\x{11CB5}-\x{11CB6}\x{11D31}-\x{11D36}\x{11D3A}"
    r"\x{11D3C}-\x{11D3D}\x{11D3F}-\x{11D45}\x{11D47}\x{11D90}-\x{11D91}\x{11D95}\x{11D97}"
    r"\x{11EF3}-\x{11EF4}\x{11F00}-\x{11F01}\x{11F36}-\x{11F3A}\x{11F40}\x{11F42}\x{13440}"
    r"\x{13447}-\x{13455}\x{16F4F}\x{16FE4}\x{1CF00}-\x{1CF2D}\x{1CF30}-\x{1CF46}"
    r"\x{1E000}-\x{1E006}\x{1E008}-\x{1E018}\x{1E01B}-\x{1E021}\x{1E023}-\x{1E024}"
    r"\x{1E026}-\x{1E02A}\x{1E08F}\x{1E130}-\x{1E136}\x{1E2AE}\x{1E2EC}-\x{1E2EF}"
    r"\x{1E4EC}-\x{1E4EF}\x{1E944}-\x{1E94A}"
)
_HF_STRIPPED_MARKS = r"\x{1734}"
# Punctuation (P*) that tokenizers does not split on, and two characters it does split on:
_HF_NOT_PUNCTUATION = (
    r"\x{61D}\x{9FD}\x{A76}\x{C77}\x{C84}\x{1B7D}-\x{1B7E}\x{2E43}-\x{2E4F}"
    r"\x{2E52}-\x{2E5D}\x{10EAD}\x{10F55}-\x{10F59}\x{10F86}-\x{10F89}\x{1144B}-\x{1144F}"
    r"\x{1145A}-\x{1145B}\x{1145D}\x{11660}-\x{1166C}\x{116B9}\x{1183B}\x{11944}-\x{11946}"
    r"\x{119E2}\x{11A3F}-\x{11A46}\x{11A9A}-\x{11A9C}\x{11A9E}-\x{11AA2}"
    r"\x{11B00}-\x{11B09}\x{11C41}-\x{11C45}\x{11C70}-\x{11C71}\x{11EF7}-\x{11EF8}"
    r"\x{11F43}-\x{11F4F}\x{11FFF}\x{12FF1}-\x{12FF2}\x{16E97}-\x{16E9A}\x{16FE2}"
    r"\x{1E95E}-\x{1E95F}"
)
_HF_PUNCTUATION = r"\x{166D}\x{111C9}"

# BERT's reference normalization (google-research/bert BasicTokenizer, HF `BertNormalizer` +
# `BertPreTokenizer`), written as RE2 patterns for `tf.strings.regex_replace`.
# Dropped: NUL, U+FFFD and control, format, private-use and surrogate characters (Cc Cf Co Cs)
# except \t \n \r. Unassigned code points (Cn) are kept, as Hugging Face does.
_DROP = r"[^\t\n\r\P{Cc}]|[^\P{Cf}" + _HF_KEPT_FORMAT + r"]|[\p{Co}\p{Cs}\x{FFFD}]"
# Whitespace (Rust `char::is_whitespace` minus the control characters dropped above) -> " ".
_WHITESPACE = r"[\t\n\r\p{Z}]"
# CJK ideographs get spaces around them: BERT's `_is_chinese_char` ranges, except that tokenizers
# starts Extension E at U+2B920 where BERT has U+2B820.
_CJK = (r"([\x{4E00}-\x{9FFF}\x{3400}-\x{4DBF}\x{20000}-\x{2A6DF}\x{2A700}-\x{2B73F}"
        r"\x{2B740}-\x{2B81F}\x{2B920}-\x{2CEAF}\x{F900}-\x{FAFF}\x{2F800}-\x{2FA1F}])")
# Combining marks stripped from accented letters in lower-case mode.
_MARKS = r"[^\P{Mn}" + _HF_KEPT_MARKS + r"]|[" + _HF_STRIPPED_MARKS + r"]"
# Punctuation = Unicode P* plus all ASCII punctuation (which adds $ + < = > ^ ` | ~).
# (`[^\P{P}X]` is RE2 for "P* except X": not (not-P or X).)
_PUNCTUATION = (r"([^\P{P}" + _HF_NOT_PUNCTUATION + r"]|[!-/:-@\[-`{-~" + _HF_PUNCTUATION
                + r"])")

# BERT's special tokens as they appear literally in text (matched before normalization, as HF does).
_SPECIAL_TOKENS = "|".join(re.escape(token) for token in SPECIAL_TOKENS)


def normalize_reference(texts, lower_case=True):
    """BERT's reference text normalization as TensorFlow string ops (any shape).

    Cleans (invalid UTF-8 -> U+FFFD; drops NUL, U+FFFD and control/format characters;
    whitespace -> space), pads CJK ideographs with spaces and, if `lower_case`, applies NFD,
    strips combining marks (Mn) and lowercases — in Hugging Face `BertNormalizer`'s order.
    Splitting into words is left to the caller.

    Args:
        texts: `tf.string` tensor.
        lower_case: lowercase and strip accents.

    Returns:
        `tf.string` tensor of the same shape.

    Example:
        >>> normalize_reference(tf.constant(["Héllo\\x07 Wörld™"])).numpy()
        array([b'hello world\\xe2\\x84\\xa2'], dtype=object)
    """
    texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                         replacement_char=0xFFFD)
    texts = tf.strings.regex_replace(texts, _DROP, "")
    texts = tf.strings.regex_replace(texts, _WHITESPACE, " ")
    texts = tf.strings.regex_replace(texts, _CJK, r" \1 ")
    if lower_case:
        texts = text.normalize_utf8(texts, "NFD")
        texts = tf.strings.regex_replace(texts, _MARKS, "")
        # ICU lowercases a word-final capital sigma to "ς"; BERT maps each character alone ("σ").
        texts = tf.strings.regex_replace(texts, "\u03a3", "\u03c3")
        texts = tf.strings.lower(texts, encoding="utf-8")
    return texts


def split_words_reference(texts):
    """Splits normalized text on whitespace and isolates punctuation: [...] -> [..., (words)]."""
    return tf.strings.split(_pad_punctuation(texts))


def _pad_punctuation(texts):
    return tf.strings.regex_replace(texts, _PUNCTUATION, r" \1 ")


def _strings_or_string(method):
    """Checks a tokenize method's text and lets it, written for `[batch]` strings, take a scalar too."""
    @functools.wraps(method)
    def call(self, texts):
        texts = self._as_strings(texts)
        if texts.shape.rank == 0:
            outputs = method(self, texts[tf.newaxis])
            return tuple(t[0] for t in outputs) if isinstance(outputs, tuple) else outputs[0]
        return method(self, texts)
    return call


class Tokenizer(tf.Module):
    """BERT WordPiece tokenizer that runs inside the TensorFlow graph.

    Args:
        vocab_path: path to a BERT `vocab.txt`; it needs `[PAD] [UNK] [CLS] [SEP] [MASK]`.
        lower_case: lowercase and strip accents (uncased models).
        normalization: `"reference"` reproduces Hugging Face's `BertTokenizerFast` (and
            Google's BERT) with regex string ops (TensorFlow/SavedModel; in TFLite they need
            Select-TF ops). Ids match on all tested text and on every single code point; the
            one known difference is ~137 letters of scripts added in Unicode 13-16 whose case
            mapping or decomposition ICU and Rust disagree on (absent from BERT vocabularies).
            `"fast"` uses `FastBertTokenizer`'s built-in normalization (TFLite builtins +
            tf-text custom ops only), which differs on rare characters: NFKC case folding
            (`ß`->`ss`, `™`->`tm`, `…`->`...`, fullwidth forms and ligatures folded), control
            characters become spaces instead of vanishing, and the word-length limit counts
            UTF-8 bytes instead of characters. On 25,407 Shakespeare lines both agree with HF.
        max_chars_per_word: longer words become `[UNK]` (BERT: 100).
        split_special_tokens: False (default, as Hugging Face): a literal special token in
            the text (`"the [MASK] is"`) is that token's id, matched case-sensitively before
            normalization. True (Google's original `tokenization.py`): it is split as text
            (`[`, `mask`, `]`). With `normalization="fast"` special tokens are always split
            as text (matching them needs regex ops that TFLite lacks).

    The whole contract (and how to save it with a model) is `tokenizer.text_config`
    (`keras_bert.TextConfig`).

    Example:
        >>> tokenizer = Tokenizer("vocab.txt")
        >>> tokenizer.tokenize(tf.constant(["Hello world!"]))
        <tf.RaggedTensor [[7592, 2088, 999]]>
    """

    def __init__(self, vocab_path, lower_case=True, normalization="reference",
                 max_chars_per_word=100, split_special_tokens=False):
        super().__init__(name="tokenizer")
        if normalization not in NORMALIZATIONS:
            raise ValueError(
                f"normalization={normalization!r} is not supported; expected one of "
                f"{NORMALIZATIONS} ('reference' matches BERT exactly, 'fast' is TFLite-friendly).")
        if int(max_chars_per_word) < 1:
            raise ValueError(f"max_chars_per_word must be >= 1, got {max_chars_per_word}.")
        self.vocab_path = os.fspath(vocab_path)
        self.vocab = load_vocab(self.vocab_path)
        ids = special_token_ids(self.vocab, f"Vocabulary file {self.vocab_path!r}")
        self._check_duplicates()
        self.vocab_size = len(self.vocab)
        self.lower_case = bool(lower_case)
        self.normalization = normalization
        self.max_chars_per_word = int(max_chars_per_word)
        self.split_special_tokens = bool(split_special_tokens) or normalization == "fast"
        self.pad_id, self.unk_id = ids["[PAD]"], ids["[UNK]"]
        self.cls_id, self.sep_id, self.mask_id = ids["[CLS]"], ids["[SEP]"], ids["[MASK]"]
        self._index = {token: i for i, token in enumerate(self.vocab)}
        self.vocab_asset = tf.saved_model.Asset(self.vocab_path)
        if normalization == "reference":
            # Words are split by our own ops, so WordPiece sees one word at a time. Its byte
            # limit only has to admit every word of <= max_chars_per_word characters (<= 4
            # bytes each); the character limit itself is applied in `tokenize_words`.
            self._wordpiece = text.FastWordpieceTokenizer(
                vocab=self.vocab, suffix_indicator="##",
                max_bytes_per_word=4 * self.max_chars_per_word, token_out_type=tf.int32,
                unknown_token="[UNK]", no_pretokenization=True, support_detokenization=True)
        else:
            self._wordpiece = text.FastBertTokenizer(
                vocab=self.vocab, suffix_indicator="##",
                max_bytes_per_word=self.max_chars_per_word, token_out_type=tf.int32,
                unknown_token="[UNK]", support_detokenization=True,
                lower_case_nfd_strip_accents=self.lower_case)
            # is_suffix[id]: the piece continues a word ("##..."), used to regroup pieces.
            self._is_suffix = tf.constant([t.startswith("##") for t in self.vocab], tf.bool)

    @property
    def text_config(self):
        """This tokenizer's `keras_bert.TextConfig` (save it with the model: `.save(folder)`)."""
        from keras_bert.text.text_config import TextConfig  # pylint: disable=import-outside-toplevel

        return TextConfig(self.vocab_path, lower_case=self.lower_case,
                          normalization=self.normalization,
                          split_special_tokens=self.split_special_tokens,
                          max_chars_per_word=self.max_chars_per_word)

    def _check_duplicates(self):
        seen = {}
        for i, token in enumerate(self.vocab):
            if token in seen:
                raise ValueError(
                    f"Vocabulary file {self.vocab_path!r} lists {token!r} twice (lines "
                    f"{seen[token] + 1} and {i + 1}); every token must appear once.")
            seen[token] = i

    @_strings_or_string
    def tokenize(self, texts):
        """Text to WordPiece ids: `[batch]` strings -> int32 `[batch, (pieces)]`; scalar -> `[(pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
        """
        if self.normalization == "fast":
            return self._wordpiece.tokenize(texts)  # [b, (p)]
        return self.tokenize_words(texts).merge_dims(1, 2)  # [b, (w), (p)] -> [b, (p)]

    @_strings_or_string
    def tokenize_words(self, texts):
        """Text to ids grouped by word: `[batch]` -> int32 `[batch, (words), (pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
        """
        if self.normalization == "reference":
            words = self._words_reference(texts)  # [b, (w)]
            n_chars = tf.strings.length(words, unit="UTF8_CHAR")
            too_long = tf.ragged.map_flat_values(tf.greater, n_chars, self.max_chars_per_word)
            words = tf.ragged.map_flat_values(tf.where, too_long, "[UNK]", words)
            return self._wordpiece.tokenize(words)  # [b, (w), (p)]
        pieces = self._wordpiece.tokenize(texts)  # [b, (p)]
        # A word starts at every piece that is not a "##" suffix.
        starts = tf.logical_not(tf.gather(self._is_suffix, pieces.flat_values))
        word_starts = tf.cast(tf.reshape(tf.where(starts), [-1]), tf.int64)
        words = tf.RaggedTensor.from_row_starts(pieces.flat_values, word_starts)  # [words, (p)]
        # Words per text = word starts between consecutive row splits (cumsum, not a segment
        # sum: TFLite has no builtin for int64 segment sums).
        starts_before = tf.concat([[0], tf.cumsum(tf.cast(starts, tf.int64))], axis=0)
        words_per_text = tf.experimental.numpy.diff(tf.gather(starts_before, pieces.row_splits))
        return tf.RaggedTensor.from_row_lengths(words, words_per_text)  # [b, (w), (p)]

    def _words_reference(self, texts):
        """`[batch]` -> words `[batch, (words)]`, literal special tokens kept whole unless split."""
        if self.split_special_tokens:
            return split_words_reference(normalize_reference(texts, self.lower_case))
        # [b] -> [b, (segments)]: the special tokens and the text between them, as HF matches them.
        texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                             replacement_char=0xFFFD)  # RE2 needs valid UTF-8
        # regex_split stops at NUL; \x01 is dropped by the normalization just like NUL.
        texts = tf.strings.regex_replace(texts, r"\x00", "\x01")
        segments = text.regex_split(texts, _SPECIAL_TOKENS, _SPECIAL_TOKENS)
        flat = segments.flat_values
        is_special = tf.strings.regex_full_match(flat, _SPECIAL_TOKENS)
        normalized = _pad_punctuation(normalize_reference(flat, self.lower_case))
        # A special token stays one word (no spaces in it); WordPiece finds it whole in the vocab.
        words = tf.strings.split(tf.where(is_special, flat, normalized))  # [segments, (w)]
        return segments.with_flat_values(words).merge_dims(1, 2)  # [b, (w)]

    def detokenize(self, ids):
        """Ids back to text: pieces joined by spaces, `##` suffixes merged, `[PAD]` dropped.

        Args:
            ids: int ids, `[batch, (pieces)]` (ragged or dense) -> `[batch]` strings, or
                `[(pieces)]` -> scalar string.
        """
        if not isinstance(ids, tf.RaggedTensor):
            ids = tf.convert_to_tensor(ids)
        ids = tf.cast(ids, tf.int32)
        if ids.shape.rank == 1:
            return self.detokenize(ids[tf.newaxis])[0]
        if ids.shape.rank != 2:
            raise ValueError(f"detokenize expects ids of rank 1 or 2, got shape {ids.shape}.")
        if not isinstance(ids, tf.RaggedTensor):
            ids = tf.RaggedTensor.from_tensor(ids)
        ids = self._checked_ids(ids)
        ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.pad_id))
        # FastWordpiece detokenizes one word per row: [b, (p)] in -> [b] strings out.
        return self._wordpiece.detokenize(ids)

    def _checked_ids(self, ids):
        """`ids` if all are in `[0, vocab_size)`; the WordPiece kernel would read out of bounds."""
        flat = ids.flat_values
        if tf.executing_eagerly():
            bad = flat.numpy()[(flat.numpy() < 0) | (flat.numpy() >= self.vocab_size)]
            if bad.size:
                raise ValueError(
                    f"detokenize got token id {int(bad[0])}, outside the vocabulary "
                    f"[0, {self.vocab_size}) of {self.vocab_path!r}; pass ids this tokenizer produced.")
            return ids
        message = f"detokenize: token ids must be in [0, vocab_size={self.vocab_size})"
        checks = [tf.debugging.assert_non_negative(flat, message=message),
                  tf.debugging.assert_less(flat, self.vocab_size, message=message)]
        with tf.control_dependencies(checks):
            return ids.with_flat_values(tf.identity(flat))

    def token_to_id(self, token):
        """Python helper: the id of `token` (KeyError naming it if it is not in the vocabulary)."""
        if token not in self._index:
            raise KeyError(f"Token {token!r} is not in the vocabulary {self.vocab_path!r}.")
        return self._index[token]

    def id_to_token(self, id):  # pylint: disable=redefined-builtin
        """Python helper: the token with id `id` (IndexError if out of range)."""
        id = int(id)
        if not 0 <= id < self.vocab_size:
            raise IndexError(
                f"Token id {id} is out of range; the vocabulary has {self.vocab_size} tokens.")
        return self.vocab[id]

    @staticmethod
    def _as_strings(texts):
        if texts is None:
            raise ValueError("Tokenizer got None instead of text; pass a string, a list of strings "
                             "or a tf.string tensor of rank 0 or 1.")
        if isinstance(texts, tf.RaggedTensor):
            raise ValueError(
                "Tokenizer expects a dense tf.string tensor of rank 0 or 1, got a RaggedTensor.")
        texts = tf.convert_to_tensor(texts, dtype_hint=tf.string)
        if texts.dtype != tf.string:
            raise ValueError(f"Tokenizer expects tf.string text, got dtype {texts.dtype.name}.")
        if texts.shape.rank not in (0, 1):
            raise ValueError(
                f"Tokenizer expects a scalar string or a [batch] vector of strings, got shape "
                f"{texts.shape}; reshape to [-1] first.")
        return texts

    # ----- tokenize_with_offsets (offsets come from the same ops as the ids)

    @_strings_or_string
    def tokenize_with_offsets(self, texts):
        """Text to ids grouped by word, with every piece's character span in the text.

        Spans are `[start, end)` in characters (code points, Python `str` indices), as Hugging
        Face's `return_offsets_mapping`; a piece of an accented or case-folded word spans the
        original characters it came from. With `normalization="reference"` each character is
        normalized on its own (BERT's normalization is per character; the one exception,
        canonical reordering of stacked combining marks, only reorders marks that are kept).
        With `"fast"` the spans are `FastBertTokenizer`'s (equal to Hugging Face's on the
        Shakespeare lines; a zero-width character next to a word can fall inside its span).
        Literal special tokens (`[MASK]`) stay whole or are split exactly as in `tokenize_words`
        (`split_special_tokens`), so ids always equal `tokenize_words`'.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.

        Returns:
            `(ids, starts, ends)`: int32 `[batch, (words), (pieces)]` as `tokenize_words`, and
            int64 starts and ends of the same shape (rank 0 input drops the batch dimension).

        Example:
            >>> ids, starts, ends = tokenizer.tokenize_with_offsets(["Héllo wörld!"])
            >>> starts.to_list(), ends.to_list()
            ([[[0], [6], [11]]], [[[5], [11], [12]]])
        """
        if self.normalization == "fast":
            ids = self.tokenize_words(texts)
            _, byte_starts, byte_ends = self._wordpiece.tokenize_with_offsets(texts)  # [b, (p)]
            starts, ends = _bytes_to_chars(texts, byte_starts, byte_ends)
            return ids, ids.with_flat_values(starts), ids.with_flat_values(ends)
        return self._reference_with_offsets(texts)

    def _reference_with_offsets(self, texts):
        """`tokenize_words` with the reference normalization, run per character to keep origins."""
        texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                             replacement_char=0xFFFD)
        if self.split_special_tokens:
            segments = tf.RaggedTensor.from_tensor(texts[:, tf.newaxis])  # [b, (1)]
            is_special = tf.zeros_like(texts, tf.bool)
        else:  # as `_words_reference`: literal special tokens are segments of their own
            safe = tf.strings.regex_replace(texts, r"\x00", "\x01")  # both dropped; same bytes
            segments = text.regex_split(safe, _SPECIAL_TOKENS, _SPECIAL_TOKENS)  # [b, (s)]
            is_special = tf.strings.regex_full_match(segments.flat_values, _SPECIAL_TOKENS)
        chars = tf.strings.unicode_split(segments.flat_values, "UTF-8")  # [S, (c)]
        text_chars = segments.with_flat_values(chars).merge_dims(1, 2)  # [b, (c)]: the texts' chars
        normalized = _pad_punctuation(normalize_reference(chars.flat_values, self.lower_case))
        char_special = tf.gather(is_special, chars.value_rowids())
        normalized = tf.where(char_special, chars.flat_values, normalized)  # [C]
        units = tf.strings.unicode_split(normalized, "UTF-8")  # [C, (u)] normalized characters
        unit_char = units.value_rowids()  # [U] index into chars.flat_values
        unit_segment = tf.gather(chars.value_rowids(), unit_char)  # [U]
        kept = tf.not_equal(units.flat_values, " ")
        previous_kept = tf.concat([[False], kept[:-1]], 0)
        previous_segment = tf.concat([tf.constant([-1], tf.int64), unit_segment[:-1]], 0)
        word_start = kept & (~previous_kept | tf.not_equal(unit_segment, previous_segment))
        unit_values, unit_char, unit_segment, word_start = (
            tf.boolean_mask(x, kept) for x in (units.flat_values, unit_char, unit_segment, word_start))
        unit_text = tf.gather(segments.value_rowids(), unit_segment)
        unit_char -= tf.gather(text_chars.row_starts(), unit_text)  # index within its text
        word = tf.cumsum(tf.cast(word_start, tf.int64)) - 1  # [K] word of each kept unit
        num_words = tf.reduce_sum(tf.cast(word_start, tf.int64))
        word_units = tf.RaggedTensor.from_value_rowids(unit_values, word, nrows=num_words)
        words = tf.strings.reduce_join(word_units, axis=1)  # [W]
        too_long = word_units.row_lengths() > self.max_chars_per_word
        pieces, starts, ends = self._wordpiece.tokenize_with_offsets(
            tf.where(too_long, "[UNK]", words))  # [W, (p)], byte offsets in the word
        # Byte offset of every unit in the concatenation of all words -> unit of each piece.
        unit_byte = tf.cumsum(tf.cast(tf.strings.length(unit_values), tf.int64), exclusive=True)
        word_byte = tf.gather(unit_byte, word_units.row_starts())  # [W] first byte of each word
        piece_word = pieces.value_rowids()
        whole = tf.gather(too_long, piece_word)  # an over-long word's [UNK] spans the word
        word_bytes = tf.cast(tf.strings.length(words), tf.int64)
        starts = tf.where(whole, tf.zeros_like(starts.flat_values), starts.flat_values)
        ends = tf.where(whole, tf.gather(word_bytes, piece_word), ends.flat_values)
        first = tf.searchsorted(unit_byte, tf.gather(word_byte, piece_word) + starts, side="right") - 1
        last = tf.searchsorted(unit_byte, tf.gather(word_byte, piece_word) + ends, side="left") - 1
        word_text = tf.gather(unit_text, word_units.row_starts())

        def by_text(values):  # [P] -> [b, (w), (p)]
            return tf.RaggedTensor.from_value_rowids(
                pieces.with_flat_values(values), word_text, nrows=tf.shape(texts, tf.int64)[0])

        return (by_text(pieces.flat_values), by_text(tf.gather(unit_char, first)),
                by_text(tf.gather(unit_char, last) + 1))


def _bytes_to_chars(texts, byte_starts, byte_ends):
    """Byte spans `[b, (p)]` into `texts` -> flat character spans `[P]`."""
    _, char_bytes = tf.strings.unicode_decode_with_offsets(texts, "UTF-8", errors="replace")
    text_byte = tf.cumsum(tf.cast(tf.strings.length(texts), tf.int64), exclusive=True)  # [b]
    char_byte = char_bytes.flat_values + tf.gather(text_byte, char_bytes.value_rowids())  # [C]
    piece_text = byte_starts.value_rowids()
    shift = tf.gather(text_byte, piece_text)
    first_char = tf.gather(char_bytes.row_starts(), piece_text)
    starts = tf.searchsorted(char_byte, byte_starts.flat_values + shift, side="right",
                             out_type=tf.int64) - 1
    ends = tf.searchsorted(char_byte, byte_ends.flat_values + shift, side="left", out_type=tf.int64)
    return starts - first_char, ends - first_char

