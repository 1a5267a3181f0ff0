"""Character spans of WordPiece pieces in the original text (Hugging Face's offset mapping)."""

import tensorflow as tf
import tensorflow_text as text

from keras_bert.text.normalization import SPECIAL_TOKENS_PATTERN, normalize_reference, pad_punctuation
from keras_bert.text.ragged_rows import join_rows


def reference_pieces_with_offsets(texts, wordpiece, lower_case, split_special_tokens,
                                  max_chars_per_word):
    """`Tokenizer.tokenize_words` with the reference normalization, run per character so every
    piece keeps the characters it came from.

    Args:
        texts: `[b]` `tf.string`.
        wordpiece: the tokenizer's `text.WordpieceTokenizer`.
        lower_case, split_special_tokens, max_chars_per_word: the tokenizer's settings.

    Returns:
        `(ids, starts, ends)`, each `[b, (words), (pieces)]`; spans in characters.
    """
    texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                         replacement_char=0xFFFD)
    if split_special_tokens:
        segments = tf.RaggedTensor.from_tensor(texts[:, tf.newaxis])  # [b, (1)]
        is_special = tf.zeros_like(texts, tf.bool)
    else:  # as `_words_reference`: literal special tokens are segments of their own
        safe = tf.strings.regex_replace(texts, r"\x00", "\x01")  # both dropped; same bytes
        segments = text.regex_split(safe, SPECIAL_TOKENS_PATTERN, SPECIAL_TOKENS_PATTERN)  # [b, (s)]
        is_special = tf.strings.regex_full_match(segments.flat_values, SPECIAL_TOKENS_PATTERN)
    chars = tf.strings.unicode_split(segments.flat_values, "UTF-8")  # [S, (c)]
    text_chars = join_rows(segments.row_splits, chars)  # [b, (c)]: the texts' chars
    normalized = pad_punctuation(normalize_reference(chars.flat_values, lower_case))
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
    too_long = word_units.row_lengths() > max_chars_per_word
    pieces, starts, ends = wordpiece.tokenize_with_offsets(
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


def bytes_to_chars(texts, byte_starts, byte_ends):
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
