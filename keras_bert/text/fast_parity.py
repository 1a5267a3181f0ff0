"""Where `normalization="fast"` (FastBertTokenizer's NFKC case folding: the TFLite text model's
tokenizer) gives other ids than BERT's reference normalization: texts and single characters."""

import collections
import sys
import unicodedata

import tensorflow as tf

from keras_bert.text.tokenizer import Tokenizer


def fast_twin(tokenizer):
    """`tokenizer` with `normalization="fast"` (same vocabulary, case and word limit)."""
    return Tokenizer(tokenizer.vocab_path, lower_case=tokenizer.lower_case, normalization="fast",
                     max_chars_per_word=tokenizer.max_chars_per_word)


def differing_texts(tokenizer, texts, batch_size=2048):
    """Indices of `texts` whose ids from `tokenizer` (reference) and its fast twin differ. A literal
    special token (`[MASK]`) counts as text on both sides (the fast tokenizer always splits it)."""
    reference = Tokenizer(tokenizer.vocab_path, lower_case=tokenizer.lower_case, normalization="reference",
                          max_chars_per_word=tokenizer.max_chars_per_word, split_special_tokens=True)
    fast, differ = fast_twin(tokenizer), []
    for start in range(0, len(texts), batch_size):
        batch = tf.constant(list(texts[start:start + batch_size]))
        want, got = reference.tokenize(batch).to_list(), fast.tokenize(batch).to_list()
        differ += [start + i for i, (a, b) in enumerate(zip(want, got)) if a != b]
    return differ


def differing_characters(tokenizer, code_points=None):
    """Every assigned code point (or those given) that changes the ids when it stands between
    letters and alone (`"a{c}b {c}"`): the exact list of characters the fast path folds otherwise."""
    if code_points is None:
        code_points = [c for c in range(sys.maxunicode + 1)
                       if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
    texts = [f"a{chr(c)}b {chr(c)}" for c in code_points]
    return [code_points[i] for i in differing_texts(tokenizer, texts)]


def describe_characters(points):
    """Lines for `points` (sorted code points): counts by Unicode category, then every range of
    consecutive points outside private use (Co), with its first character's category and name."""
    by_category = collections.Counter(unicodedata.category(chr(p)) for p in points)
    lines = [f"assigned code points whose ids differ: {len(points)} "
             f"({', '.join(f'{c} {n}' for c, n in by_category.most_common())})"]
    ranges = []
    for point in (p for p in points if unicodedata.category(chr(p)) != "Co"):
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    for first, last in ranges:
        span = f"U+{first:04X}" + (f"..U+{last:04X} ({last - first + 1})" if last > first else "")
        lines.append(f"{span} {chr(first)!r} {unicodedata.category(chr(first))} {unicodedata.name(chr(first), '?')}")
    return lines
