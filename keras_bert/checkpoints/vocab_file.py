"""vocab.txt helpers: count the tokens and check them against the embedding rows."""

import os
import shutil


def count_vocab_lines(path):
    """Number of tokens in a WordPiece vocab.txt (one per line; a final newline is optional)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")  # not splitlines(): tokens may hold U+2028 and friends
    if lines and lines[-1] == "":
        lines.pop()
    return len(lines)


def check_vocab(vocab_file, rows, source, text_config=None):
    """Raises ValueError unless vocab.txt has exactly `rows` lines; a byte-level BPE or SentencePiece
    `text_config`'s tokenizer must have no more tokens than `rows` (HF pads embeddings to a multiple)."""
    if text_config is not None and not text_config.tokenizer_kind.token_lines:
        tokens = text_config.tokenizer().vocab_size
        if tokens > rows:
            raise ValueError(f"{vocab_file} has {tokens} tokens but the checkpoint's word_embeddings has {rows} "
                             f"rows ({source}): use the tokenizer files released with these weights.")
        return
    lines = count_vocab_lines(vocab_file)
    if lines != rows:
        raise ValueError(
            f"vocab.txt has {lines} lines but the checkpoint's word_embeddings has {rows} rows "
            f"({vocab_file}, {source}). Token ids would point at the wrong rows: use the "
            "vocab.txt that was released with these weights.")


def copy_vocab(vocab_file, directory):
    """Copies vocab.txt into `directory` (unless it is already there); returns the new path."""
    target = os.path.join(directory, "vocab.txt")
    if os.path.abspath(vocab_file) != os.path.abspath(target):
        shutil.copyfile(vocab_file, target)
    return target
