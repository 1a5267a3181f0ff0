"""Byte-level BPE's two in-graph steps: GPT-2's pre-tokenizer split (with byte offsets) and BPE merges.

Hand-written (docs/DESIGN.md rule 9, measured reasons): keras-hub 0.32's `BytePairTokenizer` runs in the graph
but (1) emulates GPT-2's `\\s+(?!\\S)` with a marker character and splits whitespace runs differently
from Hugging Face `tokenizers` (`"  "` -> `" ", " "` where HF keeps `"  "` whole, so `ĠĠ` becomes two
ids; `"a\\x00b"` loses everything after the NUL), (2) returns no offsets, and (3) keeps a mutable
cache table. The merge loop below merges every place of a word's lowest-rank pair in one step (left
to right where they overlap), which is what HF's BPE does one place at a time for merges learnt in order.
"""

import re

import tensorflow as tf
import tensorflow_text as text

from keras_bert.text.byte_bpe_files import bytes_to_unicode  # noqa: F401 (GPT-2's byte table, re-exported)

# Unicode White_Space (what `\\s` means to HF's onig regex; RE2's `\\s` is ASCII only).
WHITESPACE = r"\t-\r \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_RUN = rf"[{WHITESPACE}]+"
# GPT-2's pattern without the lookahead: `\s+(?!\S)` is done by `_chunks` (see `pretokenize`).
_WORD = (rf"'s|'t|'re|'ve|'m|'ll|'d| ?\p{{L}}+| ?\p{{N}}+| ?[^{WHITESPACE}\p{{L}}\p{{N}}]+|{_RUN}")


def special_pattern(specials, lstrip=()):
    """An RE2 pattern matching any of the literal `specials` (longest first), each of `lstrip` with the
    whitespace before it (Hugging Face's `lstrip: true` added tokens)."""
    return "|".join((f"[{WHITESPACE}]*" if token in lstrip else "") + re.escape(token)
                    for token in sorted(specials, key=len, reverse=True))


def pretokenize(texts, specials=None, max_words=None):
    """GPT-2 / RoBERTa's ByteLevel pre-tokenizer split: `[b]` valid UTF-8 -> words `[b, (w)]`, with
    byte starts and ends `[b, (w)]` in the text.

    RE2 has no lookahead, so `\\s+(?!\\S)|\\s+` is done in two passes: the text is cut into runs of
    whitespace and of other characters; a whitespace run followed by text gives its last character to
    that text (which the pattern's ` ?` then takes with the next word, or `\\s+` keeps alone); then
    GPT-2's pattern splits every chunk. NUL is split as `\\x01` (RE2 stops at NUL) and kept as NUL.
    `specials` (a `special_pattern`): literal special tokens are words of their own, matched before
    the rest as Hugging Face matches added tokens (the text on either side is split on its own).
    `max_words` (a scalar tensor): only each text's chunks before its `max_words`-th are split (a chunk
    gives a word at least), so the words start as the whole text's and the rest of a long text costs
    one regex pass.
    """
    safe = tf.strings.regex_replace(texts, r"\x00", "\x01")  # same bytes, same character class
    cut_at = f"{specials}|{_RUN}" if specials else _RUN
    runs, starts, ends = text.regex_split_with_offsets(safe, cut_at, cut_at)  # [b, (r)]
    row = runs.value_rowids()
    starts, ends = starts.flat_values, ends.flat_values
    same_row_next = tf.concat([tf.equal(row[1:], row[:-1]), [False]], 0)
    is_space = tf.strings.regex_full_match(runs.flat_values, _RUN)
    gives = is_space & same_row_next  # gives its last character to the next run (not to a special)
    if specials:
        gives &= ~tf.concat([tf.strings.regex_full_match(runs.flat_values[1:], specials), [False]], 0)
    last = tf.strings.substr(runs.flat_values, -1, 1, unit="UTF8_CHAR")
    cut = tf.where(gives, ends - tf.cast(tf.strings.length(last), tf.int64), ends)
    starts = tf.where(tf.concat([[False], gives[:-1]], 0), tf.concat([[0], cut[:-1]], 0), starts)
    keep = cut > starts
    starts, ends, row = (tf.boolean_mask(x, keep) for x in (starts, cut, row))
    if max_words is not None:  # a chunk's place in its text: rows are sorted
        keep = tf.range(tf.size(row, tf.int64)) - tf.searchsorted(row, row, out_type=tf.int64) < max_words
        starts, ends, row = (tf.boolean_mask(x, keep) for x in (starts, ends, row))
    chunks = byte_ranges(safe, row, starts, ends)  # [C]
    word = f"{specials}|{_WORD}" if specials else _WORD
    _, word_starts, word_ends = text.regex_split_with_offsets(chunks, word, word)  # [C, (w)]
    word_chunk = word_starts.value_rowids()
    shift = tf.gather(starts, word_chunk)
    word_starts, word_ends = word_starts.flat_values + shift, word_ends.flat_values + shift
    word_text = tf.gather(row, word_chunk)
    words = byte_ranges(texts, word_text, word_starts, word_ends)
    nrows = tf.shape(texts, out_type=tf.int64)[0]

    def by_text(values):
        return tf.RaggedTensor.from_value_rowids(values, word_text, nrows=nrows)

    return by_text(words), by_text(word_starts), by_text(word_ends)


def byte_ranges(texts, rows, starts, ends):
    """The bytes `[starts, ends)` of `texts[rows]` (`[N]` each) as `[N]` strings, in memory linear in the texts
    (`substr` of gathered texts copies a whole text per range: 1 MB of text took 20 GB)."""
    text_bytes = tf.strings.bytes_split(texts)  # [b, (bytes)]
    offset = tf.gather(text_bytes.row_starts(), rows)
    index = tf.ragged.range(offset + starts, offset + ends)  # [N, (bytes)]
    return tf.strings.reduce_join(tf.gather(text_bytes.flat_values, index), axis=1)


def longest_from_byte(tokens, literal):
    """Per byte (256): the most bytes a token starting with it holds (1 where none does). `tokens`: byte-level
    strings; `literal`: ids of special and added tokens (words of their own, one token each)."""
    longest = [1] * 256
    byte_of = {char: byte for byte, char in enumerate(bytes_to_unicode())}
    for i, token in enumerate(tokens):
        byte = byte_of.get(token[:1]) if i not in literal else None  # a token of other characters: never made
        if byte is not None:
            longest[byte] = max(longest[byte], len(token))
    return longest


def words_in_reach(words, special, max_pieces, longest_from):
    """The words that can give one of their text's first `max_pieces` tokens, each cut to the bytes those
    tokens can span: `words` `[b, (w)]`, `special` `[W]` -> `(keep [W], cut words [W])`.

    A word's tokens each start at one of its bytes and hold at most `longest_from[byte]` bytes
    (`longest_from_byte`), so a word of n bytes gives at least 1 + ceil((n - first) / rest) tokens (`first`:
    its first byte's longest, `rest`: its other bytes' longest), a special word one. A word after those that
    already give `max_pieces` is not merged, nor a word's bytes past `first + (max_pieces - 1) * rest`. A
    text whose tokens fit in `max_pieces` keeps every byte (the same ids); a longer one merges about
    `max_pieces` tokens' bytes, whatever its length.
    """
    flat = words.flat_values
    raw = tf.strings.bytes_split(flat)  # [W, (n)]
    codes = tf.cast(tf.reshape(tf.io.decode_raw(raw.flat_values, tf.uint8), [-1]), tf.int32)  # [N]
    longest = tf.gather(longest_from, codes)  # [N]
    position = tf.range(tf.size(codes, tf.int64)) - tf.gather(raw.row_starts(), raw.value_rowids())
    n = raw.row_lengths()  # [W]
    first = tf.gather(tf.concat([longest, [1]], 0), tf.minimum(raw.row_starts(), tf.size(codes, tf.int64)))
    rest = tf.math.unsorted_segment_max(tf.where(position > 0, longest, 1), raw.value_rowids(), tf.size(n))
    rest = tf.maximum(rest, 1)  # a word of one byte (or none) has no rest
    least = tf.where(special | (n <= first), tf.constant(1, tf.int64), 1 + (n - first + rest - 1) // rest)  # [W]
    total = tf.cumsum(least)
    row_base = tf.gather(tf.concat([[0], total], 0), tf.gather(words.row_starts(), words.value_rowids()))
    keep = total - least - row_base < max_pieces  # tokens of the text's earlier words, at least
    span = first + (max_pieces - 1) * rest
    return keep, tf.where(special, flat, tf.strings.substr(flat, tf.zeros_like(span), span))


# The most bytes of one word that are merged: the rest of a longer word (a bad PDF extraction: 100,000
# letters without a space) stays one token per byte, so one request's work is bounded (measured: a
# 10,000-letter word took 35 s with one merge per step; a 1,024-byte head takes well under a second).
# The head alone gives at least 1024 / (longest token's bytes) pieces, far past what most models keep;
# Hugging Face merges the whole word, so ids differ in a word's bytes past its first 1,024 only.
HEAD = 1024


def bpe_merge(symbols, merge_ranks, no_rank, head=HEAD):
    """Applies BPE merges: `symbols` `[W, (s)]` (a word's byte characters) -> tokens `[W, (t)]`.

    Args:
        symbols: ragged `tf.string`, one row per word.
        merge_ranks: a lookup table `"left right"` -> rank (int64), `no_rank` for pairs never merged.
        no_rank: the table's default (larger than every rank).
        head: a word's bytes past this many are not merged (see `HEAD`).
    """
    position = tf.range(tf.size(symbols.flat_values, tf.int64)) \
        - tf.gather(symbols.row_starts(), symbols.value_rowids())  # [S] index in its word
    heads = tf.ragged.boolean_mask(symbols, symbols.with_flat_values(position < head))
    # Each step costs (words x longest word), and there are up to (longest word) steps: words are
    # merged in buckets of similar length so one 250-byte word does not slow every short one
    # (measured: 434 lines with one such word, 140 s in one bucket, ~1 s in two; each bucket's loop
    # adds to the graph's trace time, so two).
    short = heads.row_lengths() <= 16
    order = [tf.where(short)[:, 0], tf.where(~short)[:, 0]]
    merged = tf.concat([_merge(tf.gather(heads, rows), merge_ranks, no_rank) for rows in order], 0)
    merged = tf.gather(merged, tf.math.invert_permutation(tf.concat(order, 0)))  # [W, (t)]
    return tf.concat([merged, tf.ragged.boolean_mask(symbols, symbols.with_flat_values(position >= head))], 1)


def _merge(symbols, merge_ranks, no_rank):
    words = symbols.to_tensor("")  # (W, S): "" pads and marks merged-away symbols
    words = tf.concat([words, tf.fill([tf.shape(words)[0], 2], "")], 1)  # no empty pair axis

    def step(words, _):
        left, right = words[:, :-1], words[:, 1:]  # (W, S-1) each
        ranks = merge_ranks.lookup(tf.strings.join([left, right], " "))
        ranks = tf.where((left != "") & (right != ""), ranks, no_rank)
        lowest = tf.reduce_min(ranks, axis=1, keepdims=True)  # (W, 1)
        # Every place of a word's lowest-rank pair merges in one step, left to right: as HF's one at a
        # time for merges learnt in order (a merge never makes a pair of lower rank than its own). In a
        # run of overlapping places ("x x x"), the 1st, 3rd, ... merge, as the leftmost goes first.
        candidate = (ranks == lowest) & (lowest < no_rank)  # (W, S-1)
        before = tf.cumsum(tf.cast(candidate, tf.int32), axis=1, exclusive=True)
        width = tf.shape(ranks)[1] + 1  # group ids of one row: 0 .. S-1
        group = tf.reshape(tf.cumsum(tf.cast(~candidate, tf.int32), axis=1)
                           + tf.range(tf.shape(ranks)[0])[:, tf.newaxis] * width, [-1])  # a run and the gap before it
        first = tf.math.unsorted_segment_min(tf.reshape(before, [-1]), group, tf.shape(ranks)[0] * width)
        start = tf.reshape(tf.gather(first, group), tf.shape(ranks))  # candidates before this run
        take = candidate & ((before - start) % 2 == 0)  # (W, S-1)
        take = tf.concat([take, tf.zeros_like(take[:, :1])], 1)  # (W, S)
        joined = tf.strings.join([words, tf.roll(words, -1, axis=1)])  # symbol i + symbol i+1
        merged = tf.where(take, joined, tf.where(tf.roll(take, 1, axis=1), "", words))
        # Close the gaps left by the merged-away symbols, so pairs stay adjacent.
        merged = tf.ragged.boolean_mask(merged, merged != "").to_tensor("", shape=tf.shape(words))
        return merged, tf.reduce_any(take)

    words, _ = tf.while_loop(lambda _, more: more, step, [words, tf.constant(True)])
    return tf.ragged.boolean_mask(words, words != "")
