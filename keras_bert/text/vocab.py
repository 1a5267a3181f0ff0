"""WordPiece vocabularies: read and validate a `vocab.txt`, build one from text files."""

import os
import unicodedata

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def load_vocab(vocab_path):
    """Reads a BERT `vocab.txt` (one token per line, line number = id).

    Args:
        vocab_path: path to a UTF-8 text file (a leading byte-order mark is dropped).

    Returns:
        The list of tokens.

    Raises:
        ValueError: the file is missing, empty or not UTF-8.

    Example:
        >>> vocab = load_vocab("vocab.txt")
        >>> vocab[:3]
        ['[PAD]', '[unused0]', '[unused1]']
    """
    vocab_path = os.fspath(vocab_path)
    if not os.path.isfile(vocab_path):
        raise ValueError(
            f"Vocabulary file {vocab_path!r} does not exist. Pass the path of a BERT "
            "vocab.txt (one WordPiece token per line), e.g. the one next to the checkpoint, "
            "or build one with tools/build_vocab.py.")
    with open(vocab_path, "rb") as f:
        raw = f.read()
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise ValueError(
            f"Vocabulary file {vocab_path!r} is not valid UTF-8 (byte {error.start}, line "
            f"{line}): {error.reason}. A BERT vocab.txt must be UTF-8; re-save it as UTF-8.") from None
    content = content.removeprefix("\ufeff")  # a UTF-8 byte-order mark (Excel, Notepad) is not part of the first token
    # The final newline ends the last line; it does not start a new token.
    vocab = [token.rstrip("\r") for token in content.removesuffix("\n").split("\n")] if content else []
    if not vocab:
        raise ValueError(
            f"Vocabulary file {vocab_path!r} is empty. Expected one WordPiece token per line "
            f"including the special tokens {', '.join(SPECIAL_TOKENS)}.")
    return vocab


def check_unique(vocab, vocab_path):
    """Refuses a vocabulary that lists a token twice (its ids would be ambiguous), naming both lines."""
    seen = {}
    for i, token in enumerate(vocab):
        if token in seen:
            raise ValueError(f"Vocabulary file {vocab_path!r} lists {token!r} twice (lines {seen[token] + 1} and "
                             f"{i + 1}); every token must appear once.")
        seen[token] = i


def special_token_ids(vocab, vocab_path="the vocabulary"):
    """Returns `{"[PAD]": id, "[UNK]": id, ...}` for the five BERT special tokens.

    Args:
        vocab: list of tokens.
        vocab_path: name used in error messages.

    Raises:
        ValueError: naming every special token the vocabulary lacks.

    Example:
        >>> special_token_ids(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"])["[CLS]"]
        2
    """
    index = {}
    for i, token in enumerate(vocab):
        index.setdefault(token, i)
    missing = [token for token in SPECIAL_TOKENS if token not in index]
    if missing:
        raise ValueError(
            f"{vocab_path} lacks the special token(s) {', '.join(missing)}. A BERT vocabulary "
            f"needs all of {', '.join(SPECIAL_TOKENS)} (one per line); add the missing ones or "
            "use the vocab.txt that belongs to the checkpoint.")
    return {token: index[token] for token in SPECIAL_TOKENS}


def reachable_vocab(vocab):
    """`vocab` for a tf-text tokenizer that splits words itself, and the tokens it had to hide.

    BERT's reference splits text on whitespace before WordPiece, so a token holding whitespace
    (`new york` in a renamed `[unusedN]` slot) never matches; tf-text's trie matches it across
    the space (`new` then becomes `[UNK]`). Each such token is replaced by `\\x01<id>\\x01`,
    which no normalized text holds (control characters are dropped or become spaces); ids keep
    their numbers.

    Returns:
        `(tokens, hidden)`: the tuple to give tf-text and `{placeholder: token}`.
    """
    tokens, hidden = list(vocab), {}
    for i, token in enumerate(tokens):
        if any(c.isspace() or unicodedata.category(c) == "Zs" for c in token):
            tokens[i] = f"\x01{i}\x01"
            hidden[tokens[i]] = token
    return tuple(tokens), hidden


def write_vocab(vocab, path):
    """Writes tokens one per line (UTF-8), the format `load_vocab` reads.

    Args:
        vocab: list of tokens.
        path: output file; parent folders are created.

    Example:
        >>> write_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the"], "/tmp/vocab.txt")
    """
    bad = [token for token in vocab if "\n" in token or "\r" in token or token == ""]
    if bad:
        raise ValueError(f"Vocabulary tokens must be non-empty and hold no newline; got {bad[:5]!r}.")
    parent = os.path.dirname(os.fspath(path))
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(token + "\n" for token in vocab))


def build_vocab(files, vocab_size, lower_case=True, output=None, reserved_tokens=SPECIAL_TOKENS,
                max_lines=None, learn_params=None, batch_size=1024, min_coverage=0.99):
    """Learns a WordPiece vocabulary from text files with tensorflow-text's learner.

    Lines are normalized and split into words exactly as `Tokenizer(normalization="reference")`
    does (so the pieces fit the tokenizer that will use them); the word counts go to
    `tensorflow_text`'s `wordpiece_tokenizer_learner_lib.learn` (what `bert_vocab_from_dataset`
    runs, minus its own, slightly different, word splitting).

    Args:
        files: text files (UTF-8, one sentence or paragraph per line): a path, a glob pattern
            or a list of them.
        vocab_size: maximum size; the learner's threshold search lands within ~5% below it,
            or lower on a small corpus where few pieces occur often enough.
        lower_case: learn an uncased vocabulary.
        output: if given, the `vocab.txt` path to write.
        reserved_tokens: tokens placed first, in order; `[PAD] [UNK] [CLS] [SEP] [MASK]` by default.
        max_lines: read at most this many non-empty lines (None: all).
        learn_params: extra keyword arguments for the learner (e.g. `{"lower_thresh": 2}` to
            admit rarer pieces on a small corpus).
        batch_size: lines per normalization batch.
        min_coverage: smallest share of the corpus's word occurrences the vocab must tokenize
            without `[UNK]` (`check_coverage`); below it, or with no learned token, ValueError.

    Returns:
        The list of tokens, reserved tokens first.

    Example:
        >>> vocab = build_vocab(["a.txt", "b.txt"], vocab_size=2000, output="vocab.txt")
    """
    import collections

    import tensorflow as tf
    from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as learner

    from keras_bert.text.text_files import resolve_files
    from keras_bert.text.no_autograph import no_autograph
    from keras_bert.text.normalization import normalize_reference, split_words_reference

    files = [files] if isinstance(files, (str, os.PathLike)) else list(files)
    if not files:
        raise ValueError("build_vocab needs at least one text file; got none.")
    files = resolve_files(files)  # globs expanded, each file once; missing and binary files refused
    reserved_tokens = list(reserved_tokens)
    missing_special = [t for t in SPECIAL_TOKENS if t not in reserved_tokens]
    if missing_special:
        raise ValueError(f"reserved_tokens must include {', '.join(missing_special)}; the "
                         "Tokenizer needs all five BERT special tokens.")
    if vocab_size <= len(reserved_tokens):
        raise ValueError(
            f"vocab_size={vocab_size} leaves no room beside the {len(reserved_tokens)} reserved "
            "tokens; pass a larger vocab_size (BERT uses 30522).")

    dataset = tf.data.TextLineDataset(files).filter(no_autograph(lambda line: tf.strings.length(line) > 0))
    if max_lines:
        dataset = dataset.take(max_lines)
    dataset = dataset.batch(batch_size).map(no_autograph(
        lambda lines: split_words_reference(normalize_reference(lines, lower_case)).flat_values))
    counts = collections.Counter()
    for words in dataset.as_numpy_iterator():
        counts.update(words)
    if not counts:
        raise ValueError(f"build_vocab found no words in {files[:5]}; the files are empty.")
    word_counts = [(word.decode("utf-8"), count) for word, count in counts.items()]
    vocab = learner.learn(word_counts, vocab_size, reserved_tokens, **(learn_params or {}))
    if len(vocab) > vocab_size:  # the learner keeps every character of the corpus, whatever the size
        raise ValueError(
            f"vocab_size={vocab_size} (--vocab_size, or pretrain.py's --build_vocab) is too small for "
            f"this corpus: its characters and the reserved tokens alone take {len(vocab)} entries; "
            f"ask for {len(vocab)} or more.")
    learner_limits = {name: (learn_params or {}).get(name, default)
                      for name, default in (("max_token_length", 50), ("max_unique_chars", 1000))}
    check_coverage(vocab, word_counts, reserved_tokens, files, min_coverage=min_coverage, **learner_limits)
    if output:
        write_vocab(vocab, output)
    return vocab


def check_coverage(vocab, word_counts, reserved_tokens, files, min_coverage=0.99, max_chars_per_word=100,
                   max_token_length=50, max_unique_chars=1000):
    """Raises a one-line ValueError if `vocab` turns more than `1 - min_coverage` of the corpus's word
    occurrences into `[UNK]` (a character it lacks, a word longer than `max_chars_per_word`) or holds
    nothing but the reserved tokens.

    Args:
        vocab: the learned tokens.
        word_counts: `(word, count)` pairs of the corpus, as the learner saw them.
        reserved_tokens: the special tokens placed first.
        files: the corpus files (named in the message).
        min_coverage: smallest share of word occurrences that must tokenize without `[UNK]`.
        max_chars_per_word: the tokenizer's limit; longer words are `[UNK]` whatever the vocab.
        max_token_length: the learner's limit; it learns nothing from longer words.
        max_unique_chars: the learner's limit; it keeps this many of the most frequent characters.
    """
    tokens = set(vocab)
    first, rest = set(), set()
    for word, _ in word_counts:
        first.add(word[:1])
        rest.update(word[1:])
    characters = sorted(first | rest)
    missing_first = {c for c in first if c not in tokens}
    missing_rest = {c for c in rest if "##" + c not in tokens}
    total = sum(count for _, count in word_counts)
    too_long = sum(count for word, count in word_counts if len(word) > max_chars_per_word)
    unknown, lacking = too_long, set()
    if missing_first or missing_rest:
        longest = max((len(t) for t in tokens), default=1)
        for word, count in word_counts:
            suspect = word[:1] in missing_first or not missing_rest.isdisjoint(word[1:])
            if suspect and len(word) <= max_chars_per_word and not _wordpiece_covers(word, tokens, longest):
                unknown += count
                lacking.update(({word[0]} & missing_first) | (set(word[1:]) & missing_rest))
    learned = [t for t in vocab if t not in set(reserved_tokens)]
    if learned and unknown <= (1 - min_coverage) * total:
        return
    reasons = []
    if not learned:
        reasons.append("it holds only the reserved tokens")
    if len(characters) == 1:
        reasons.append(f"the corpus has only 1 distinct character, {characters[0]!r}")
    if all(len(word) > max_token_length for word, _ in word_counts):
        reasons.append(f"every word is longer than {max_token_length} characters, and the learner skips such "
                       "words (is the text split into words by spaces?)")
    elif too_long > (1 - min_coverage) * total:
        reasons.append(f"{100 * too_long / total:.1f}% of the words are longer than {max_chars_per_word} "
                       "characters, which the tokenizer maps to [UNK] (is the text split into words by spaces?)")
    lacking = sorted(lacking)
    if lacking and len(characters) > 1:
        reasons.append(f"it lacks {len(lacking)} of the corpus's {len(characters)} distinct characters, "
                       f"e.g. {', '.join(map(repr, lacking[:10]))} (the learner keeps the {max_unique_chars} "
                       "most frequent; pass learn_params={'max_unique_chars': N} or clean the text)")
    names = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    raise ValueError(
        f"build_vocab: the vocabulary learned from {names} would turn {100 * unknown / total:.1f}% of the "
        f"corpus's {total} words into [UNK]: {'; '.join(reasons) or 'too few pieces were learned'}. "
        "No vocab.txt was written.")


def _wordpiece_covers(word, tokens, longest):
    """True if greedy longest-match-first WordPiece splits `word` into `tokens` without `[UNK]`."""
    start = 0
    while start < len(word):
        for end in range(min(len(word), start + longest), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in tokens:
                start = end
                break
        else:
            return False
    return True
