"""In-graph BERT WordPiece tokenizer (tensorflow-text), matching Hugging Face's BertTokenizerFast."""

import os
import types

import tensorflow as tf
import tensorflow_text as text

from keras_bert.text.normalization import (NORMALIZATIONS, SPECIAL_TOKENS_PATTERN, normalize_reference,
                                           pad_punctuation, split_words_reference)
from keras_bert.text.offsets import bytes_to_chars, reference_pieces_with_offsets
from keras_bert.text.ragged_rows import join_rows
from keras_bert.text.string_inputs import id_rows_or_row, strings_or_string
from keras_bert.text.token_list import TokenList, TokenListLookups
from keras_bert.text.vocab import check_unique, load_vocab, reachable_vocab, special_token_ids

# Printable ASCII and \t \n \r: `tokenize`'s fast path (see `Tokenizer.__init__`).
_PLAIN_ASCII = r"[\t\n\r -~]*"


class Tokenizer(TokenListLookups, tf.Module):
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
        origin: the released checkpoint the vocabulary came with (`TextConfig.origin`), or None.

    The whole contract (and how to save it with a model) is `tokenizer.text_config`
    (`keras_bert.TextConfig`).

    Example:
        >>> tokenizer = Tokenizer("vocab.txt")
        >>> tokenizer.tokenize(tf.constant(["Hello world!"]))
        <tf.RaggedTensor [[7592, 2088, 999]]>
    """

    def __init__(self, vocab_path, lower_case=True, normalization="reference",
                 max_chars_per_word=100, split_special_tokens=False, origin=None):
        super().__init__(name="tokenizer")
        if normalization not in NORMALIZATIONS:
            raise ValueError(
                f"normalization={normalization!r} is not supported; expected one of "
                f"{NORMALIZATIONS} ('reference' matches BERT exactly, 'fast' is TFLite-friendly).")
        if int(max_chars_per_word) < 1:
            raise ValueError(f"max_chars_per_word must be >= 1, got {max_chars_per_word}.")
        self.vocab_path = os.fspath(vocab_path)
        vocab = tuple(load_vocab(self.vocab_path))
        ids = special_token_ids(vocab, f"Vocabulary file {self.vocab_path!r}")
        check_unique(vocab, self.vocab_path)
        self._token_list = TokenList(vocab, self.vocab_path)  # one item for tf.Module's walk (TokenList)
        self.vocab_size = len(vocab)
        self.lower_case = bool(lower_case)
        self.normalization = normalization
        self.max_chars_per_word = int(max_chars_per_word)
        self.split_special_tokens = bool(split_special_tokens) or normalization == "fast"
        self.origin = origin  # the released checkpoint it came with (TextConfig.origin), saved with exports
        self.pad_id, self.unk_id = ids["[PAD]"], ids["[UNK]"]
        self.cls_id, self.sep_id, self.mask_id = ids["[CLS]"], ids["[SEP]"], ids["[MASK]"]
        self.vocab_asset = tf.saved_model.Asset(self.vocab_path)
        if normalization == "reference":
            # Words are split by our own ops, so WordPiece sees one word at a time. Its byte
            # limit only has to admit every word of <= max_chars_per_word characters (<= 4
            # bytes each); the character limit itself is applied in `tokenize_words`.
            self._wordpiece = text.FastWordpieceTokenizer(
                vocab=vocab, suffix_indicator="##",
                max_bytes_per_word=4 * self.max_chars_per_word, token_out_type=tf.int32,
                unknown_token="[UNK]", no_pretokenization=True, support_detokenization=True)
            # Texts of printable ASCII (+ \t \n \r) with no literal special token: BERT's
            # normalization is only lowercasing there, and WordPiece's own pre-tokenization
            # (whitespace, BERT's punctuation) splits them as the reference does, in one op at
            # 1/4 of the CPU time of the regex ops (tools/bench_pipeline.py); byte = character.
            self._plain_wordpiece = text.FastWordpieceTokenizer(
                vocab=reachable_vocab(vocab)[0], suffix_indicator="##",
                max_bytes_per_word=self.max_chars_per_word, token_out_type=tf.int32,
                unknown_token="[UNK]", no_pretokenization=False)
        else:  # a token holding whitespace is hidden from the trie, shown again by `detokenize`
            fast_vocab, hidden = reachable_vocab(vocab)
            self._hidden_tokens = types.MappingProxyType(hidden)
            self._wordpiece = text.FastBertTokenizer(
                vocab=fast_vocab, suffix_indicator="##",
                max_bytes_per_word=self.max_chars_per_word, token_out_type=tf.int32,
                unknown_token="[UNK]", support_detokenization=True,
                lower_case_nfd_strip_accents=self.lower_case)
            # is_suffix[id]: the piece continues a word ("##..."), used to regroup pieces.
            self._is_suffix = tf.constant([t.startswith("##") for t in vocab], tf.bool)

    @property
    def text_config(self):
        """This tokenizer's `keras_bert.TextConfig` (save it with the model: `.save(folder)`)."""
        from keras_bert.text.text_config import TextConfig  # pylint: disable=import-outside-toplevel

        return TextConfig(self.vocab_path, lower_case=self.lower_case,
                          normalization=self.normalization,
                          split_special_tokens=self.split_special_tokens,
                          max_chars_per_word=self.max_chars_per_word, origin=self.origin)

    @strings_or_string
    def tokenize(self, texts, max_pieces=None):
        """Text to WordPiece ids: `[batch]` strings -> int32 `[batch, (pieces)]`; scalar -> `[(pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
            max_pieces: only each text's first `max_pieces` ids are wanted (a `Preprocessor` asks for its
                `seq_length`): words past the first `max_pieces` (each gives a piece at least) are not
                looked up. The first `max_pieces` ids equal the whole text's; later ones may be missing.
        """
        if self.normalization == "fast":
            return self._wordpiece.tokenize(texts)  # [b, (p)]
        plain = tf.strings.regex_full_match(texts, _PLAIN_ASCII)  # [b]
        if not self.split_special_tokens:
            plain &= ~tf.strings.regex_full_match(texts, f"(?s).*(?:{SPECIAL_TOKENS_PATTERN}).*")
        plain_index = tf.where(plain)[:, 0]
        other_index = tf.where(~plain)[:, 0]
        plain_texts = tf.gather(texts, plain_index)
        if self.lower_case:
            plain_texts = tf.strings.lower(plain_texts)
        words = self._pieces_by_word(tf.gather(texts, other_index), max_pieces)  # [other, (w), (p)]
        pieces = tf.concat([
            self._plain_wordpiece.tokenize(plain_texts),  # [plain, (p)]
            join_rows(words.row_splits, words.values),  # [other, (p)]
        ], 0)
        # Back to the input order: row k of `pieces` is text (plain_index ++ other_index)[k].
        return tf.gather(pieces, tf.math.invert_permutation(tf.concat([plain_index, other_index], 0)))

    @strings_or_string
    def tokenize_words(self, texts):
        """Text to ids grouped by word: `[batch]` -> int32 `[batch, (words), (pieces)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
        """
        return self._pieces_by_word(texts)

    def _pieces_by_word(self, texts, max_words=None):
        """`tokenize_words` of each text's first `max_words` words (None: all)."""
        if self.normalization == "reference":
            words = self._words_reference(texts)  # [b, (w)]
            words = words if max_words is None else words[:, :max_words]
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
        # NUL fences each special token and the text is split there (NUL in the text becomes
        # \x01, which the normalization drops just like NUL): a third of the graph ops of
        # `text.regex_split`, whose three validated ragged outputs every pipeline traced.
        texts = tf.strings.regex_replace(texts, r"\x00", "\x01")
        segments = tf.strings.split(
            tf.strings.regex_replace(texts, SPECIAL_TOKENS_PATTERN, "\x00\\0\x00"), "\x00")
        flat = segments.flat_values
        is_special = tf.strings.regex_full_match(flat, SPECIAL_TOKENS_PATTERN)
        normalized = pad_punctuation(normalize_reference(flat, self.lower_case))
        # A special token stays one word (no spaces in it); WordPiece finds it whole in the vocab.
        words = tf.strings.split(tf.where(is_special, flat, normalized))  # [segments, (w)]
        return join_rows(segments.row_splits, words)  # [b, (w)]

    @id_rows_or_row
    def detokenize(self, ids):
        """Ids back to text: pieces joined by spaces, `##` suffixes merged, `[PAD]` dropped.

        Args:
            ids: int ids, `[batch, (pieces)]` (ragged or dense) -> `[batch]` strings, or
                `[(pieces)]` -> scalar string.
        """
        ids = self._checked_ids(ids)
        ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.pad_id))
        # FastWordpiece detokenizes one word per row: [b, (p)] in -> [b] strings out.
        texts = self._wordpiece.detokenize(ids)
        for placeholder, token in getattr(self, "_hidden_tokens", {}).items():
            texts = tf.strings.regex_replace(texts, placeholder, token.replace("\\", "\\\\"))
        return texts

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

    # ----- tokenize_with_offsets (offsets come from the same ops as the ids)

    @strings_or_string
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
            starts, ends = bytes_to_chars(texts, byte_starts, byte_ends)
            return ids, ids.with_flat_values(starts), ids.with_flat_values(ends)
        return reference_pieces_with_offsets(texts, self._wordpiece, self.lower_case,
                                             self.split_special_tokens, self.max_chars_per_word)
