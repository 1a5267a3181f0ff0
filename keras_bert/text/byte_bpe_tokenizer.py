"""In-graph byte-level BPE tokenizer (RoBERTa, ModernBERT), matching Hugging Face `tokenizers`."""

import os

import tensorflow as tf

from keras_bert.text.byte_bpe_files import literal_ids, read_merges, read_vocab_json, special_ids
from keras_bert.text.byte_level import (WHITESPACE, bpe_merge, bytes_to_unicode, longest_from_byte, pretokenize,
                                        special_pattern, words_in_reach)
from keras_bert.text.offsets import bytes_to_chars
from keras_bert.text.string_inputs import id_rows_or_row, strings_or_string
from keras_bert.text.token_list import TokenList, TokenListLookups

_SPACE = bytes_to_unicode()[ord(" ")]  # "Ġ"


class ByteBpeTokenizer(TokenListLookups, tf.Module):
    """Byte-level BPE (GPT-2's pre-tokenizer, no prefix space) that runs inside the TensorFlow graph.

    Ids equal Hugging Face `tokenizers`' `ByteLevelBPETokenizer(add_prefix_space=False)`. Same interface
    as `keras_bert.Tokenizer`, so the preprocessor, packer and masker take it. With RoBERTa's special
    tokens (`<s>`, `</s>`, ...) `pair_layout` is `"roberta"` (`<s> A </s></s> B </s>`) and offsets are
    character spans trimmed as RoBERTa's post-processor trims them (`trim_offsets=True`: a token's
    leading/trailing `Ġ` spaces are left out); with BERT's names (`[CLS]`, `[SEP]`, ...: ModernBERT)
    it is `"bert"` and offsets are untrimmed, as its `TemplateProcessing`. A literal special token in
    the text (`"<mask>"`) is its special id, as Hugging Face's added tokens; one of `lstrip_tokens` takes the
    whitespace before it (HF's `lstrip: true`, roberta-base's `<mask>`), its span its literal's characters.

    Args:
        vocab_file: `vocab.json` (token -> id).
        merges_file: `merges.txt` (one merge `"left right"` per line, in learnt order).
        text_config: the `TextConfig` it is made from (`text_config` returns it).
        lstrip_tokens: special or added tokens that take the whitespace before them (`TextConfig.lstrip_tokens`).

    Example:
        >>> tokenizer = ByteBpeTokenizer("vocab.json", "merges.txt")
        >>> tokenizer.tokenize(["Hello world"])  # doctest: +SKIP
        <tf.RaggedTensor [[31414, 232]]>
    """

    # A capability the export formats read: no TFLite kernel, ONNX op or MediaPipe tokenizer runs this
    # tokenizer's ops (not converted), so TFLite and ONNX carry token ids only and MediaPipe refuses it.
    portable_text_ops = False

    def __init__(self, vocab_file, merges_file, text_config=None, lstrip_tokens=()):
        super().__init__(name="byte_bpe_tokenizer")
        self.vocab_file, self.merges_file = os.fspath(vocab_file), os.fspath(merges_file)
        self._text_config = text_config
        vocab = tuple(read_vocab_json(self.vocab_file))
        self._token_list = TokenList(vocab, self.vocab_file)  # one item for tf.Module's walk (TokenList)
        merges = read_merges(self.merges_file)
        ids = special_ids(vocab, self.vocab_file)
        self.cls_id, self.sep_id, self.pad_id = ids["cls"], ids["sep"], ids["pad"]
        self.unk_id, self.mask_id = ids["unk"], ids["mask"]
        self.pair_layout = "roberta" if vocab[self.cls_id] == "<s>" else "bert"
        self.trim_offsets = self.pair_layout == "roberta"
        self.vocab_size = len(vocab)
        self._no_rank = tf.constant(len(merges), tf.int64)
        self._ranks = _table(merges, range(len(merges)), len(merges))
        self._ids = _table(vocab, range(self.vocab_size), self.unk_id, tf.int32)
        byte_chars = bytes_to_unicode()
        self._byte_char = tf.constant(byte_chars)  # (256,): byte -> its printable character
        self._char_byte = _table(byte_chars, [bytes([b]) for b in range(256)], "", tf.string)
        self._tokens = tf.constant(vocab)
        # Bytes a token stands for (one per character of its byte-level string) and its leading and
        # trailing spaces (for RoBERTa's offset trimming). A special token spans its literal text.
        # Tokens added with `add_tokens` are literal too (neither a byte nor made by a merge), as in HF.
        literal = set(literal_ids(vocab, merges, ids.values()))
        self._literal = literal
        lstrip = set(lstrip_tokens) - {vocab[i] for i in literal}
        if lstrip:
            raise ValueError(f"{self.vocab_file}: lstrip token(s) {sorted(lstrip)} are not special or added tokens "
                             "of the vocabulary; save the model's text contract again.")
        self._lstrip = tuple(lstrip_tokens)
        self._specials = special_pattern([vocab[i] for i in sorted(literal)], self._lstrip)
        self._longest_from = tf.constant(longest_from_byte(vocab, literal), tf.int64)
        self._token_bytes = tf.constant([len(t.encode("utf-8")) if i in literal else len(t)
                                         for i, t in enumerate(vocab)], tf.int64)
        self._lead = tf.constant([len(t) - len(t.lstrip(_SPACE)) for t in vocab], tf.int64)
        self._trail = tf.constant([len(t) - len(t.rstrip(_SPACE)) for t in vocab], tf.int64)
        self.vocab_asset = tf.saved_model.Asset(self.vocab_file)
        self.vocab_path = self.vocab_file  # `keras_bert.Tokenizer`'s name for it (messages, exports)
        self.lower_case = False  # the vocabulary holds the casing
        self.merges_asset = tf.saved_model.Asset(self.merges_file)
        # Traced once: the merge loop runs ~as many steps as the longest word has bytes, which
        # eagerly costs ~100x the graph's time.
        self._words = tf.function(self._words_eager, input_signature=[tf.TensorSpec([None], tf.string),
                                                                      tf.TensorSpec([], tf.int64)])

    @property
    def continues_word(self):
        """Per id: the token continues the word before it (no leading `Ġ`; special tokens never)."""
        return [i not in self._literal and not t.startswith(_SPACE) for i, t in enumerate(self._token_list.tokens)]

    @property
    def mask_token(self):
        """The mask token's text (`<mask>`, or `[MASK]` with BERT-named specials)."""
        return self._token_list.tokens[self.mask_id]

    @strings_or_string
    def tokenize(self, texts, max_pieces=None):
        """Text to ids: `[batch]` strings -> int32 `[batch, (tokens)]`; scalar -> `[(tokens)]`.

        Args:
            texts: `tf.string` tensor (or Python str / list of str) of rank 0 or 1.
            max_pieces: only each text's first `max_pieces` ids are wanted (a `Preprocessor` asks for its
                `seq_length`): the rest is not merged (`byte_level.words_in_reach`), so a long request
                costs about what `max_pieces` tokens cost. The first `max_pieces` ids equal the whole text's;
                later ones may be missing or differ (a cut word).
        """
        return self._words(texts, _limit(max_pieces))[0].merge_dims(1, 2)

    @strings_or_string
    def tokenize_words(self, texts):
        """Text to ids grouped by pre-tokenizer word: `[batch]` -> int32 `[batch, (words), (tokens)]`."""
        return self._words(texts, _limit(None))[0]

    @strings_or_string
    def tokenize_with_offsets(self, texts):
        """Ids grouped by word, with every token's character span `[start, end)` in the text.

        Returns:
            `(ids, starts, ends)`: int32 `[batch, (words), (tokens)]` as `tokenize_words`, and int64
            starts and ends of the same shape; RoBERTa's trimmed spans (a byte of a multi-byte
            character spans that whole character, as in Hugging Face).
        """
        ids, texts, word_starts = self._words(texts, _limit(None))
        token_bytes = tf.gather(self._token_bytes, ids.flat_values)  # [T]
        words = ids.values  # [W, (t)]
        before = tf.cumsum(token_bytes, exclusive=True)  # [T] bytes of all earlier tokens
        word_of = words.value_rowids()
        starts = before - tf.gather(before, tf.gather(words.row_starts(), word_of)) \
            + tf.gather(word_starts.flat_values, word_of)  # [T] byte start in its text
        flat = ids.merge_dims(1, 2)  # [b, (t)]
        starts, ends = bytes_to_chars(texts, flat.with_flat_values(starts),
                                      flat.with_flat_values(starts + token_bytes))
        lead, trail = tf.gather(self._lead, ids.flat_values), tf.gather(self._trail, ids.flat_values)
        # Hugging Face's `process_offsets(trim_offsets=True)`: spaces off the start, then the end.
        if self.trim_offsets:
            starts = tf.where(lead > 0, tf.minimum(starts + lead, ends), starts)
            ends = tf.where((trail > 0) & (ends >= trail), tf.maximum(ends - trail, starts), ends)
        return ids, ids.with_flat_values(starts), ids.with_flat_values(ends)

    def _words_eager(self, texts, max_pieces):
        """`[b]` -> (ids `[b, (w), (t)]`, the valid UTF-8 texts, word byte starts `[b, (w)]`): the words
        that can give each text's first `max_pieces` tokens (`words_in_reach`)."""
        texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                             replacement_char=0xFFFD)  # as a Python str holds it
        words, starts, _ = pretokenize(texts, self._specials, max_pieces)  # [b, (w)]
        special = tf.strings.regex_full_match(words.flat_values, self._specials)  # [W]
        if self._lstrip:  # an lstrip token's word holds the whitespace it took: the token is the rest, from there
            literal = tf.where(special, tf.strings.regex_replace(words.flat_values, f"^[{WHITESPACE}]+", ""),
                               words.flat_values)
            taken = tf.strings.length(words.flat_values) - tf.strings.length(literal)
            starts = starts.with_flat_values(starts.flat_values + tf.cast(taken, tf.int64))
            words = words.with_flat_values(literal)
        keep, cut = words_in_reach(words, special, max_pieces, self._longest_from)
        keep = words.with_flat_values(keep)
        words, starts = (tf.ragged.boolean_mask(x, keep) for x in (words.with_flat_values(cut), starts))
        special = tf.boolean_mask(special, keep.flat_values)
        plain = tf.boolean_mask(words.flat_values, ~special)
        raw = tf.strings.bytes_split(plain)  # [W', (bytes)]
        codes = tf.reshape(tf.io.decode_raw(raw.flat_values, tf.uint8), [-1])  # [B] one per byte (none: [0])
        symbols = raw.with_flat_values(tf.gather(self._byte_char, tf.cast(codes, tf.int32)))
        tokens = bpe_merge(symbols, self._ranks, self._no_rank)  # [W', (t)]
        # A special word is its one id; the other words' tokens go back in word order.
        specials = tf.RaggedTensor.from_row_lengths(self._ids.lookup(tf.boolean_mask(
            words.flat_values, special)), tf.ones_like(tf.where(special)[:, 0]))
        order = tf.concat([tf.where(~special)[:, 0], tf.where(special)[:, 0]], 0)
        ids = tf.concat([tokens.with_flat_values(self._ids.lookup(tokens.flat_values)), specials], 0)
        ids = tf.gather(ids, tf.math.invert_permutation(order))  # [W, (t)]
        return words.with_values(ids), texts, starts

    @id_rows_or_row
    def detokenize(self, ids):
        """Ids back to text (`<pad>` dropped): `[batch, (tokens)]` -> `[batch]`; `[(tokens)]` -> scalar."""
        bad = tf.get_static_value(tf.reduce_any((ids.flat_values < 0) | (ids.flat_values >= self.vocab_size)))
        if bad:
            raise ValueError(f"detokenize got a token id outside the vocabulary [0, {self.vocab_size}) of "
                             f"{self.vocab_file!r}; pass ids this tokenizer produced.")
        ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, self.pad_id))
        chars = tf.strings.unicode_split(tf.strings.reduce_join(
            tf.gather(self._tokens, ids), axis=1), "UTF-8")  # [b, (c)]
        byte_strings = self._char_byte.lookup(chars.flat_values)
        return tf.strings.reduce_join(chars.with_flat_values(byte_strings), axis=1)


def _limit(max_pieces):
    """`max_pieces` as `_words` takes it: a scalar int64 (2**40: all of every text)."""
    if max_pieces is not None and int(max_pieces) < 1:
        raise ValueError(f"max_pieces must be >= 1 (or None: all of each text), got {max_pieces}.")
    return tf.constant(2**40 if max_pieces is None else int(max_pieces), tf.int64)


def _table(keys, values, default, value_dtype=tf.int64):
    """A static lookup table (keys are strings); an empty one (a merges.txt with no merges: every
    symbol is a token) holds one key no lookup meets, as TensorFlow refuses empty tables."""
    keys, values = list(keys), list(values)
    if not keys:
        keys, values = [" "], [default]  # lookups are non-empty symbols and "left right" pairs
    keys = tf.constant(keys, tf.string)
    values = tf.constant(values, value_dtype)
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), default)
