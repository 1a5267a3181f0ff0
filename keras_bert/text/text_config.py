"""TextConfig: how a model's text is prepared (the text contract), and its files in every format.

The contract is saved with every checkpoint and export and read back by every loader and tool:

- keras_bert and Google folders: `vocab.txt` + `text_config.json` (a sidecar that Google's own
  files ignore);
- Hugging Face folders: `vocab.txt`, `tokenizer_config.json` (`do_lower_case`, `model_max_length`,
  special tokens), `special_tokens_map.json` and `tokenizer.json`, so that
  `transformers.AutoTokenizer.from_pretrained(folder)` gives the same ids
  (`huggingface_tokenizer_files.py`).

A folder with only a `vocab.txt` (e.g. one of Google's original releases) gets its casing from the
vocabulary (an uncased vocab has almost no capitalized words), with a warning that says so.
This module imports no TensorFlow.
"""

import dataclasses
import os
import shutil
import warnings

from keras_bert.text.contract_files import boolean, integer, keep_bytes, read_json, write_json
from keras_bert.text.huggingface_tokenizer_files import (HF_CONFIG, HF_SPECIAL_NAMES, HF_TOKENIZER,
                                                       check_special_tokens, is_huggingface_folder,
                                                       read_huggingface, vocab_from_tokenizer_json,
                                                       write_huggingface)
from keras_bert.text.vocab import SPECIAL_TOKENS, load_vocab

FILE_NAME = "text_config.json"
VOCAB_NAME = "vocab.txt"
NORMALIZATIONS = ("reference", "fast")
SAVE_FORMATS = ("keras", "google", "huggingface")


@dataclasses.dataclass(frozen=True)
class TextConfig:
    """Everything a model's text needs: vocabulary, case, normalization, special tokens, length.

    Args:
        vocab_file: the `vocab.txt` (one WordPiece token per line, line number = id).
        lower_case: lowercase and strip accents (uncased models).
        normalization: "reference" (BERT's / Hugging Face's exact normalization) or "fast"
            (FastBertTokenizer's, TFLite-friendly); see `keras_bert.Tokenizer`.
        split_special_tokens: False (the default, as Hugging Face): a literal `[MASK]`, `[SEP]`...
            in the text is that special token. True (Google's original `tokenization.py`): it is
            split as text (`[`, `mask`, `]`).
        max_seq_length: the packed length the model was trained with, or None.
        max_chars_per_word: longer words become `[UNK]` (BERT: 100).
        source: where the contract was read from (for messages; not saved, not compared).
        guessed: True if `lower_case` was inferred from the vocabulary, not stored with the model.

    Example:
        >>> config = TextConfig("vocab.txt", lower_case=False, max_seq_length=128)
        >>> config.save("my_model/")  # doctest: +SKIP
        >>> TextConfig.from_dir("my_model/").tokenizer()  # doctest: +SKIP
    """

    vocab_file: str
    lower_case: bool = True
    normalization: str = "reference"
    split_special_tokens: bool = False
    max_seq_length: int = None
    max_chars_per_word: int = 100
    source: str = dataclasses.field(default=None, compare=False)
    guessed: bool = dataclasses.field(default=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "vocab_file", os.fspath(self.vocab_file))
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(
                f"normalization={self.normalization!r} is not supported; expected one of "
                f"{NORMALIZATIONS} ('reference' matches BERT exactly, 'fast' is TFLite-friendly).")
        if self.max_seq_length is not None and int(self.max_seq_length) < 2:
            raise ValueError(f"max_seq_length must be >= 2 ([CLS] and [SEP]), got {self.max_seq_length}.")

    def tokenizer(self):
        """The in-graph `keras_bert.Tokenizer` for this contract."""
        from keras_bert.text.tokenizer import Tokenizer  # pylint: disable=import-outside-toplevel

        return Tokenizer(self.vocab_file, lower_case=self.lower_case, normalization=self.normalization,
                         max_chars_per_word=self.max_chars_per_word,
                         split_special_tokens=self.split_special_tokens)

    def to_dict(self):
        """The saved fields (the vocabulary by file name, relative to the folder)."""
        return {"vocab_file": VOCAB_NAME, "lower_case": self.lower_case,
                "normalization": self.normalization, "split_special_tokens": self.split_special_tokens,
                "max_seq_length": self.max_seq_length, "max_chars_per_word": self.max_chars_per_word,
                "special_tokens": dict(zip(HF_SPECIAL_NAMES, SPECIAL_TOKENS))}

    def replace(self, **changes):
        """A copy with `changes` (e.g. `max_seq_length=128`)."""
        return dataclasses.replace(self, **changes)

    def override(self, lower_case=None, flag="lower_case"):
        """This contract with `lower_case` set by a user flag; a contradiction is an error.

        Args:
            lower_case: the flag's value, or None (no flag given).
            flag: the flag's name, for the message (e.g. "--no_lower_case").
        """
        if lower_case is None or bool(lower_case) == self.lower_case:
            return self
        if not self.guessed:
            raise ValueError(
                f"{flag} asks for lower_case={bool(lower_case)} but the model's text contract "
                f"({self.source or 'its text config'}) says lower_case={self.lower_case}; the "
                f"model was trained that way. Drop {flag}.")
        return self.replace(lower_case=bool(lower_case), guessed=False, source=flag)

    def save(self, directory, format="keras"):  # pylint: disable=redefined-builtin
        """Writes the contract into `directory` (created if needed) in a checkpoint format.

        Args:
            directory: output folder.
            format: "keras" or "google" (`vocab.txt` + `text_config.json`) or "huggingface"
                (`vocab.txt`, `tokenizer_config.json`, `special_tokens_map.json`, `tokenizer.json`).

        Returns:
            The `TextConfig` of the written files.
        """
        if format not in SAVE_FORMATS:
            raise ValueError(f"Unknown text contract format {format!r}; expected one of {SAVE_FORMATS}.")
        directory = os.fspath(directory)
        os.makedirs(directory, exist_ok=True)
        vocab_file = os.path.join(directory, VOCAB_NAME)
        if os.path.abspath(self.vocab_file) != os.path.abspath(vocab_file):
            shutil.copyfile(self.vocab_file, vocab_file)
        if format == "huggingface":
            write_huggingface(self, directory)
        else:
            write_json(os.path.join(directory, FILE_NAME), self.to_dict())
        return self.replace(vocab_file=vocab_file, source=directory, guessed=False)

    @classmethod
    def from_dir(cls, path):
        """Reads the contract of a checkpoint or export folder (or of the folder of a `.keras` file).

        Reads `text_config.json` (keras_bert, Google + sidecar), else Hugging Face's
        `tokenizer_config.json` / `tokenizer.json`, else guesses the casing from `vocab.txt` and
        warns. A SavedModel's contract is read from its `assets.extra/`.

        Raises:
            FileNotFoundError: the folder has no `vocab.txt`.
        """
        contract = find_text_config(path)
        if contract is None:
            raise FileNotFoundError(
                f"{path} has no {VOCAB_NAME}, so the model's text contract is unknown. Copy the "
                f"{VOCAB_NAME} the model was trained with next to it (and {FILE_NAME}, or Hugging "
                f"Face's {HF_CONFIG}), or pass the vocabulary explicitly.")
        return contract


def find_text_config(path):
    """`TextConfig.from_dir(path)`, or None if there is no `vocab.txt` to read."""
    path = os.fspath(path)
    if not os.path.exists(path):
        return None
    directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    extra = os.path.join(directory, "assets.extra")  # a SavedModel's own files
    if not os.path.isfile(os.path.join(directory, VOCAB_NAME)) and os.path.isdir(extra):
        directory = extra
    vocab_file = os.path.join(directory, VOCAB_NAME)
    if not os.path.isfile(vocab_file):
        vocab_file = vocab_from_tokenizer_json(os.path.join(directory, HF_TOKENIZER))
        if vocab_file is None:
            return None
    sidecar = os.path.join(directory, FILE_NAME)
    if os.path.isfile(sidecar):
        return _from_dict(read_json(sidecar), vocab_file, sidecar)
    if is_huggingface_folder(directory):
        return TextConfig(vocab_file, **read_huggingface(directory))
    lower_case = vocab_is_lowercase(vocab_file)
    warnings.warn(
        f"{directory} has a {VOCAB_NAME} but no {FILE_NAME} or {HF_CONFIG}: guessing "
        f"lower_case={lower_case} from the vocabulary (an uncased vocab has almost no capitalized "
        f"words). Save the model with keras_bert to record its text contract.", UserWarning,
        stacklevel=3)
    return TextConfig(vocab_file, lower_case=lower_case, source=f"guessed from {vocab_file}",
                      guessed=True)


def vocab_is_lowercase(vocab_file):
    """True if under 1 % of the vocabulary's whole alphabetic words start with a capital."""
    words = [token for token in load_vocab(vocab_file) if token.isalpha()]
    return not words or sum(w[0].isupper() for w in words) < 0.01 * len(words)


def _from_dict(raw, vocab_file, source):
    check_special_tokens(raw.get("special_tokens", {}), source)
    fields = {f.name for f in dataclasses.fields(TextConfig)} - {"vocab_file", "source", "guessed"}
    unknown = sorted(set(raw) - fields - {"vocab_file", "special_tokens"})
    if unknown:
        raise ValueError(f"{source} has unknown field(s) {unknown}; expected {sorted(fields)}.")
    kwargs = {k: v for k, v in raw.items() if k in fields}
    for key in ("max_seq_length", "max_chars_per_word"):
        if key in kwargs:
            kwargs[key] = integer(kwargs[key], key, source)
    for key in ("lower_case", "split_special_tokens"):
        if key in kwargs:
            kwargs[key] = boolean(kwargs[key], key, source)
    return TextConfig(vocab_file, source=source, **kwargs)


def from_saved_dict(raw, vocab_file, source):
    """The contract a model's config saved (`TextConfig.to_dict()`), with its vocabulary at `vocab_file`."""
    return _from_dict(raw, vocab_file, source)


def keep_vocab(vocab_file):
    """A stable copy of `vocab_file` (content-addressed, in the temp folder) for the whole process.

    A `.keras` file's assets are extracted to a folder that Keras deletes once loading ends; the
    tokenizer reads its vocabulary later, so it gets this copy (the same bytes always get the same
    path, so nothing goes stale and a second load writes nothing).
    """
    with open(vocab_file, "rb") as f:
        return keep_bytes(f.read())
