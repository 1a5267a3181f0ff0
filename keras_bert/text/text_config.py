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
import pathlib
import shutil
import warnings

from keras_bert.text.contract_files import NO_LIMIT, boolean, integer, keep_bytes, read_json, write_json
from keras_bert.text.huggingface_tokenizer_files import (HF_CONFIG, HF_SPECIAL_NAMES, HF_TOKENIZER,
                                                       check_special_tokens, huggingface_lstrip_tokens,
                                                       is_huggingface_folder, read_huggingface,
                                                       vocab_from_tokenizer_json)
from keras_bert.text.tokenizer_kinds import contract_files, find_files, tokenizer_kind
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
        kind: the tokenizer: "wordpiece" (BERT, the default), "byte_bpe" (RoBERTa, ModernBERT:
            `vocab_file` is `vocab.json`, with `merges_file`), "sentencepiece" (XLM-R: `vocab_file`
            is `sentencepiece.bpe.model`) or "spm" (DeBERTa-v3: `spm.model`, its own ids). The casing and
            normalization fields are WordPiece's (`TokenizerKind.token_lines`).
        merges_file: byte-level BPE's `merges.txt` (kind "byte_bpe" only).
        source: where the contract was read from (for messages; not saved, not compared).
        guessed: True if `lower_case` was inferred from the vocabulary, not stored with the model.
        origin: the released checkpoint the model came from (`hf://ORG/NAME@COMMIT`), saved with the
            contract so an export says where its weights came from; None for a local checkpoint.
        lstrip_tokens: special tokens that take the whitespace before them when met as literal text
            (Hugging Face's `lstrip: true`: roberta-base's `<mask>`); kinds whose record says `lstrip_tokens`.

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
    kind: str = "wordpiece"
    merges_file: str = None
    source: str = dataclasses.field(default=None, compare=False)
    guessed: bool = dataclasses.field(default=False, compare=False)
    origin: str = dataclasses.field(default=None, compare=False)
    lstrip_tokens: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "vocab_file", os.fspath(self.vocab_file))
        lstrip = self.lstrip_tokens or ()
        object.__setattr__(self, "lstrip_tokens", tuple(lstrip) if isinstance(lstrip, (list, tuple)) else (lstrip,))
        if self.lstrip_tokens and (not tokenizer_kind(self.kind, self.source or "TextConfig").lstrip_tokens
                                   or not all(isinstance(t, str) and t for t in self.lstrip_tokens)):
            raise ValueError(f"{self.source or 'TextConfig'}: lstrip_tokens={list(self.lstrip_tokens)!r} needs token "
                             f"strings of a kind that reads them (byte_bpe); got kind={self.kind!r}. Save the model again.")
        merges = tokenizer_kind(self.kind, self.source or "TextConfig").files[1]
        if (merges is not None) != (self.merges_file is not None):
            raise ValueError(f"{self.source or 'TextConfig'}: merges_file goes with kind='byte_bpe' (its "
                             f"merges.txt) and only with it; got kind={self.kind!r}, merges_file={self.merges_file!r}.")
        if self.merges_file is not None:
            object.__setattr__(self, "merges_file", os.fspath(self.merges_file))
        if not self.tokenizer_kind.token_lines:  # BPE and SentencePiece vocabularies hold their own casing
            object.__setattr__(self, "lower_case", False)
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(
                f"normalization={self.normalization!r} is not supported; expected one of "
                f"{NORMALIZATIONS} ('reference' matches BERT exactly, 'fast' is TFLite-friendly).")
        if self.max_seq_length is not None and int(self.max_seq_length) < 2:
            raise ValueError(f"max_seq_length must be >= 2 ([CLS] and [SEP]), got {self.max_seq_length}.")

    @property
    def tokenizer_kind(self):
        """The record of the contract's kind (`tokenizer_kinds.TokenizerKind`): its files, tokenizer, writers."""
        return tokenizer_kind(self.kind)

    def tokenizer(self):
        """The in-graph tokenizer for this contract (`keras_bert.Tokenizer` for WordPiece)."""
        return self.tokenizer_kind.tokenizer(self)

    def to_dict(self):
        """The saved fields (the vocabulary by file name, relative to the folder)."""
        origin = {"origin": self.origin} if self.origin else {}
        if not self.tokenizer_kind.token_lines:
            files = dict(zip(("vocab_file", "merges_file"), (name for name, _ in contract_files(self))))
            lstrip = {"lstrip_tokens": list(self.lstrip_tokens)} if self.lstrip_tokens else {}
            return {"kind": self.kind, **files, "max_seq_length": self.max_seq_length, **origin, **lstrip}
        return {**origin, "vocab_file": VOCAB_NAME, "lower_case": self.lower_case,
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
        saved = {}
        for field, (name, path) in zip(("vocab_file", "merges_file"), contract_files(self)):
            saved[field] = os.path.join(directory, name)
            if os.path.abspath(path) != os.path.abspath(saved[field]):
                shutil.copyfile(path, saved[field])
        if format == "huggingface":
            self.tokenizer_kind.write_huggingface(self, directory)
        else:
            write_json(os.path.join(directory, FILE_NAME), self.to_dict())
        return self.replace(source=directory, guessed=False, **saved)

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
    other = None if os.path.isfile(vocab_file) else find_files(directory)
    if other is not None:
        return _other_kind(directory, *other)
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


def _other_kind(directory, kind, vocab_file, merges_file):
    """The contract of a byte-level BPE or SentencePiece folder (its text_config.json's length, else
    Hugging Face's model_max_length)."""
    sidecar, hf_config = os.path.join(directory, FILE_NAME), os.path.join(directory, HF_CONFIG)
    source = sidecar if os.path.isfile(sidecar) else hf_config if os.path.isfile(hf_config) else directory
    raw = read_json(source) if source != directory else {}
    saved_kind = raw.get("kind", kind) if source == sidecar else kind
    if saved_kind != kind:
        raise ValueError(f"{sidecar} says kind={saved_kind!r} but {directory} holds {kind} files; save "
                         "the model again.")
    length = raw.get("max_seq_length") if source == sidecar else raw.get("model_max_length")
    length = integer(length, "max_seq_length", source)
    length = length if length is not None and length < NO_LIMIT else None
    lstrip = () if not tokenizer_kind(kind).lstrip_tokens else raw.get("lstrip_tokens", ()) if source == sidecar \
        else huggingface_lstrip_tokens(directory)
    return TextConfig(vocab_file, lower_case=False, kind=kind, merges_file=merges_file, max_seq_length=length,
                      source=source, origin=raw.get("origin") if source == sidecar else None, lstrip_tokens=lstrip)


def vocab_is_lowercase(vocab_file):
    """True if under 1 % of the vocabulary's whole alphabetic words start with a capital."""
    words = [token for token in load_vocab(vocab_file) if token.isalpha()]
    return not words or sum(w[0].isupper() for w in words) < 0.01 * len(words)


def _from_dict(raw, vocab_file, source, merges_file=None):
    check_special_tokens(raw.get("special_tokens", {}), source)
    fields = {f.name for f in dataclasses.fields(TextConfig)} - {"vocab_file", "merges_file", "source", "guessed"}
    unknown = sorted(set(raw) - fields - {"vocab_file", "merges_file", "special_tokens"})
    if unknown:
        raise ValueError(f"{source} has unknown field(s) {unknown}; expected {sorted(fields)}.")
    kwargs = {k: v for k, v in raw.items() if k in fields}
    for key in ("max_seq_length", "max_chars_per_word"):
        if key in kwargs:
            kwargs[key] = integer(kwargs[key], key, source)
    for key in ("lower_case", "split_special_tokens"):
        if key in kwargs:
            kwargs[key] = boolean(kwargs[key], key, source)
    return TextConfig(vocab_file, source=source, merges_file=merges_file, **kwargs)


def from_saved_assets(raw, directory, source):
    """The contract a model's config saved (`to_dict()`), its files read from the asset `directory`
    (kept copies: Keras deletes that folder after loading). One line names a missing asset."""
    kind = raw.get("kind", "wordpiece")
    names = [n for n in tokenizer_kind(kind, source).files if n]
    missing = [n for n in names if not os.path.isfile(os.path.join(directory, n))]
    if missing:
        raise ValueError(f"{source} has a {kind} text contract but no {', '.join(missing)} asset; save "
                         "the model again.")
    # A `.keras` file's assets are extracted to a folder that Keras deletes once loading ends; the
    # tokenizer reads its files later, so it gets stable copies for the whole process (the same bytes
    # always get the same path, so nothing goes stale and a second load writes nothing).
    kept = [keep_bytes(pathlib.Path(directory, n).read_bytes()) for n in names]
    return _from_dict(raw, kept[0], source, kept[1] if len(kept) > 1 else None)
