"""Learns a byte-level BPE (RoBERTa's `vocab.json` + `merges.txt`) from text files.

With Hugging Face `tokenizers` (docs/DESIGN.md rule 9: the library that defines the format), RoBERTa's settings:
no prefix space, its five special tokens first (`<s> <pad> </s> <unk> <mask>`, ids 0-4). Imports no TensorFlow.
"""

import os

from keras_bert.text.byte_bpe_files import BPE_SPECIALS, MERGES_TXT, VOCAB_JSON
from keras_bert.text.text_config import TextConfig

SPECIALS = tuple(BPE_SPECIALS[name] for name in ("cls", "pad", "sep", "unk", "mask"))  # RoBERTa's ids 0-4


def learn_byte_bpe(files, vocab_size, output_dir, min_frequency=2, max_lines=None):
    """Writes `output_dir/vocab.json` and `merges.txt` learnt from `files`; returns their `TextConfig`.

    Args:
        files: UTF-8 text files.
        vocab_size: the most tokens (the 256 bytes and the 5 special tokens included).
        output_dir: the folder to write (created if needed).
        min_frequency: the fewest occurrences of a pair that is merged.
        max_lines: read at most this many non-empty lines (None: all).

    Example:
        >>> learn_byte_bpe(["corpus.txt"], 8000, "runs/bpe").kind  # doctest: +SKIP
        'byte_bpe'
    """
    try:
        import tokenizers  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise ImportError("Learning a byte-level BPE needs Hugging Face tokenizers: pip install tokenizers.") from None
    if vocab_size < 256 + len(SPECIALS):
        raise ValueError(f"A byte-level BPE needs vocab_size >= {256 + len(SPECIALS)} (every byte and "
                         f"{len(SPECIALS)} special tokens), got {vocab_size}.")
    os.makedirs(output_dir, exist_ok=True)
    learner = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    learner.train_from_iterator(_lines(files, max_lines), vocab_size=vocab_size, min_frequency=min_frequency,
                                special_tokens=list(SPECIALS), show_progress=False)
    learner.save_model(os.fspath(output_dir))
    return TextConfig(os.path.join(output_dir, VOCAB_JSON), kind="byte_bpe",
                      merges_file=os.path.join(output_dir, MERGES_TXT))


def _lines(files, max_lines):
    count = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    yield line.rstrip("\n")
                    count += 1
                    if max_lines is not None and count >= max_lines:
                        return
