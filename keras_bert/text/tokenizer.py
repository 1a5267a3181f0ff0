"""In-graph BERT WordPiece tokenizer (tensorflow-text), matching Hugging Face's BertTokenizerFast."""

import os

import tensorflow as tf
import tensorflow_text as text

from keras_bert.text.vocab import load_vocab, special_token_ids

NORMALIZATIONS = ("reference", "fast")

# BERT's reference normalization (google-research/bert BasicTokenizer, HF `BertNormalizer` +
# `BertPreTokenizer`), written as RE2 patterns for `tf.strings.regex_replace`.
# Dropped: NUL, U+FFFD and every "other" character (Cc Cf Co Cs, and unassigned = Cn, which RE2
# cannot name, hence the complement of all assigned categories) except \t \n \r.
_DROP = r"[^\t\n\r\PC]|[^\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\p{C}]|\x{FFFD}"
# Whitespace (Rust `char::is_whitespace` minus the control characters dropped above) -> " ".
_WHITESPACE = r"[\t\n\r\p{Z}]"
# CJK ideographs get spaces around them (BERT's `_is_chinese_char` ranges).
_CJK = (r"([\x{4E00}-\x{9FFF}\x{3400}-\x{4DBF}\x{20000}-\x{2A6DF}\x{2A700}-\x{2B73F}"
        r"\x{2B740}-\x{2B81F}\x{2B820}-\x{2CEAF}\x{F900}-\x{FAFF}\x{2F800}-\x{2FA1F}])")
# Punctuation = Unicode P* plus all ASCII punctuation (which adds $ + < = > ^ ` | ~).
_PUNCTUATION = r"([\p{P}!-/:-@\[-`{-~])"


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
        texts = tf.strings.regex_replace(texts, r"\p{Mn}", "")
        # ICU lowercases a word-final capital sigma to "ς"; BERT maps each character alone ("σ").
        texts = tf.strings.regex_replace(texts, "\u03a3", "\u03c3")
        texts = tf.strings.lower(texts, encoding="utf-8")
    return texts


def split_words_reference(texts):
    """Splits normalized text on whitespace and isolates punctuation: [...] -> [..., (words)]."""
    texts = tf.strings.regex_replace(texts, _PUNCTUATION, r" \1 ")
    return tf.strings.split(texts)


class Tokenizer(tf.Module):
    """BERT WordPiece tokenizer that runs inside the TensorFlow graph.

    Args:
        vocab_path: path to a BERT `vocab.txt`; it needs `[PAD] [UNK] [CLS] [SEP] [MASK]`.
        lower_case: lowercase and strip accents (uncased models).
        normalization: `"reference"` reproduces Hugging Face's `BertTokenizerFast` (and
            Google's BERT) exactly, with regex string ops (TensorFlow/SavedModel; in TFLite
            they need Select-TF ops). `"fast"` uses `FastBertTokenizer`'s built-in
            normalization (TFLite builtins + tf-text custom ops only), which differs on rare
            characters: NFKC case folding (`ß`->`ss`, `™`->`tm`, `…`->`...`, fullwidth forms
            and ligatures folded), control characters become spaces instead of vanishing,
            and the word-length limit counts UTF-8 bytes instead of characters.
        max_chars_per_word: longer words become `[UNK]` (BERT: 100).

    Example:
        >>> tokenizer = Tokenizer("vocab.txt")
        >>> tokenizer.tokenize(tf.constant(["Hello world!"]))
        <tf.RaggedTensor [[7592, 2088, 999]]>
    """

    def __init__(self, vocab_path, lower_case=True, normalization="reference",
                 max_chars_per_word=100):
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
        self.pad_id, self.unk_id = ids["[PAD]"], ids["[UNK]"]
        self.cls_id, self.sep_id, self.mask_id = ids["[CLS]"], ids["[SEP]"], ids["[MASK]"]
        self._index = {token: i for i, token in reversed(list(enumerate(self.vocab)))}
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

    def _check_duplicates(self):
        seen = {}
        for i, token in enumerate(self.vocab):
            if token in seen:
                raise ValueError(
                    f"Vocabulary file {self.vocab_path!r} lists {token!r} twice (lines "
                    f"{seen[token] + 1} and {i + 1}); every token must appear once.")
            seen[token] = i

    def tokenize(self, texts):
        """Text to WordPiece ids: `[batch]` strings -> int32 `[batch, (pieces)]`; scalar -> `[(pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
        """
        words = self.tokenize_words(texts)
        return words.merge_dims(-2, -1)

    def tokenize_words(self, texts):
        """Text to ids grouped by word: `[batch]` -> int32 `[batch, (words), (pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
        """
        texts = self._as_strings(texts)
        if texts.shape.rank == 0:
            return self.tokenize_words(texts[tf.newaxis])[0]
        if self.normalization == "reference":
            words = split_words_reference(normalize_reference(texts, self.lower_case))  # [b, (w)]
            n_chars = tf.strings.length(words, unit="UTF8_CHAR")
            too_long = tf.ragged.map_flat_values(tf.greater, n_chars, self.max_chars_per_word)
            words = tf.ragged.map_flat_values(tf.where, too_long, "[UNK]", words)
            return self._wordpiece.tokenize(words)  # [b, (w), (p)]
        pieces = self._wordpiece.tokenize(texts)  # [b, (p)]
        # A word starts at every piece that is not a "##" suffix.
        starts = tf.logical_not(tf.gather(self._is_suffix, pieces.flat_values))
        word_starts = tf.cast(tf.reshape(tf.where(starts), [-1]), tf.int64)
        words = tf.RaggedTensor.from_row_starts(pieces.flat_values, word_starts)  # [words, (p)]
        words_per_text = tf.math.unsorted_segment_sum(
            tf.cast(starts, tf.int64), pieces.value_rowids(), pieces.nrows())
        return tf.RaggedTensor.from_row_lengths(words, words_per_text)  # [b, (w), (p)]

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
        ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.pad_id))
        # FastWordpiece detokenizes one word per row: [b, (p)] in -> [b] strings out.
        return self._wordpiece.detokenize(ids)

    def token_to_id(self, token):
        """Python helper: the id of `token` (KeyError naming it if it is not in the vocabulary)."""
        if token not in self._index:
            raise KeyError(f"Token {token!r} is not in the vocabulary {self.vocab_path!r}.")
        return self._index[token]

    def id_to_token(self, id):  # pylint: disable=redefined-builtin
        """Python helper: the token with id `id` (IndexError if out of range)."""
        id = int(id)
        if not 0 <= id < self.vocab_size:
            raise IndexError(f"Token id {id} is out of range; the vocabulary has {self.vocab_size} tokens.")
        return self.vocab[id]

    @staticmethod
    def _as_strings(texts):
        if isinstance(texts, tf.RaggedTensor):
            raise ValueError("Tokenizer expects a dense tf.string tensor of rank 0 or 1, got a RaggedTensor.")
        texts = tf.convert_to_tensor(texts)
        if texts.dtype != tf.string:
            raise ValueError(f"Tokenizer expects tf.string text, got dtype {texts.dtype.name}.")
        if texts.shape.rank not in (0, 1):
            raise ValueError(
                f"Tokenizer expects a scalar string or a [batch] vector of strings, got shape "
                f"{texts.shape}; reshape to [-1] first.")
        return texts
