"""TextConfig: how a model's text is prepared (the text contract), and its files in every format.

The contract is saved with every checkpoint and export and read back by every loader and tool:

- keras_bert and Google folders: `vocab.txt` + `text_config.json` (a sidecar that Google's own
  files ignore);
- Hugging Face folders: `vocab.txt`, `tokenizer_config.json` (`do_lower_case`, `model_max_length`,
  special tokens), `special_tokens_map.json` and `tokenizer.json`, so that
  `transformers.AutoTokenizer.from_pretrained(folder)` gives the same ids.

A folder with only a `vocab.txt` (e.g. one of Google's original releases) gets its casing from the
vocabulary (an uncased vocab has almost no capitalized words), with a warning that says so.
This module imports no TensorFlow.
"""

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import warnings

from keras_bert.config import read_json
from keras_bert.text.vocab import SPECIAL_TOKENS, load_vocab, special_token_ids

FILE_NAME = "text_config.json"
VOCAB_NAME = "vocab.txt"
HF_CONFIG = "tokenizer_config.json"
HF_SPECIAL_TOKENS = "special_tokens_map.json"
HF_TOKENIZER = "tokenizer.json"
NORMALIZATIONS = ("reference", "fast")
SAVE_FORMATS = ("keras", "google", "huggingface")
# Hugging Face's names for BERT's special tokens, in `SPECIAL_TOKENS` order.
HF_SPECIAL_NAMES = ("pad_token", "unk_token", "cls_token", "sep_token", "mask_token")
_HF_NO_LIMIT = 10 ** 12  # transformers writes int(1e30) for "no model_max_length"


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
            _write_huggingface(self, directory)
        else:
            _write_json(os.path.join(directory, FILE_NAME), self.to_dict())
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
        vocab_file = _vocab_from_tokenizer_json(os.path.join(directory, HF_TOKENIZER))
        if vocab_file is None:
            return None
    sidecar = os.path.join(directory, FILE_NAME)
    if os.path.isfile(sidecar):
        return _from_dict(_read_json(sidecar), vocab_file, sidecar)
    if os.path.isfile(os.path.join(directory, HF_CONFIG)) or os.path.isfile(
            os.path.join(directory, HF_TOKENIZER)):
        return _read_huggingface(directory, vocab_file)
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
    _check_special_tokens(raw.get("special_tokens", {}), source)
    fields = {f.name for f in dataclasses.fields(TextConfig)} - {"vocab_file", "source", "guessed"}
    unknown = sorted(set(raw) - fields - {"vocab_file", "special_tokens"})
    if unknown:
        raise ValueError(f"{source} has unknown field(s) {unknown}; expected {sorted(fields)}.")
    kwargs = {k: v for k, v in raw.items() if k in fields}
    for key in ("max_seq_length", "max_chars_per_word"):
        if key in kwargs:
            kwargs[key] = _integer(kwargs[key], key, source)
    for key in ("lower_case", "split_special_tokens"):
        if key in kwargs:
            kwargs[key] = _boolean(kwargs[key], key, source)
    return TextConfig(vocab_file, source=source, **kwargs)


def _check_special_tokens(tokens, source):
    """keras_bert's tokenizer uses BERT's five special tokens; anything else is refused by name."""
    for name, default in zip(HF_SPECIAL_NAMES, SPECIAL_TOKENS):
        token = tokens.get(name, default)
        token = token.get("content") if isinstance(token, dict) else token
        if token not in (default, None):
            raise ValueError(
                f"{source} sets {name}={token!r}; keras_bert supports BERT's special tokens "
                f"{', '.join(SPECIAL_TOKENS)} only.")


def _read_huggingface(directory, vocab_file):
    """The contract of a Hugging Face folder: `tokenizer_config.json`, else `tokenizer.json`."""
    config_file = os.path.join(directory, HF_CONFIG)
    if os.path.isfile(config_file):
        raw = _read_json(config_file)
        source = config_file
        lower_case = raw.get("do_lower_case", True)  # BertTokenizer's default
        strip_accents, chinese = raw.get("strip_accents"), raw.get("tokenize_chinese_chars", True)
    else:
        source = os.path.join(directory, HF_TOKENIZER)
        normalizer = _read_json(source).get("normalizer") or {}
        raw = {}
        lower_case = normalizer.get("lowercase", True)
        strip_accents, chinese = normalizer.get("strip_accents"), normalizer.get("handle_chinese_chars", True)
    if strip_accents is not None and bool(strip_accents) != bool(lower_case):
        raise ValueError(
            f"{source} sets strip_accents={strip_accents} with lowercase={lower_case}; keras_bert "
            "strips accents exactly when it lowercases (as BERT does).")
    if not chinese:
        raise ValueError(f"{source} turns off tokenize_chinese_chars; keras_bert always splits CJK "
                         "ideographs (as BERT does).")
    _check_special_tokens(raw, source)
    max_length = _integer(raw.get("model_max_length"), "model_max_length", source)
    max_length = max_length if max_length is not None and max_length < _HF_NO_LIMIT else None
    return TextConfig(vocab_file, lower_case=_boolean(lower_case, "do_lower_case", source),
                      split_special_tokens=_boolean(raw.get("split_special_tokens", False),
                                                    "split_special_tokens", source),
                      max_seq_length=max_length, source=source)


def _integer(value, key, source):
    """A whole number from a JSON value: 512, 512.0, 1e30 (transformers' "no limit") or "512"; None
    stays None; anything else is one line naming the file, the key and the value."""
    if value is None:
        return None
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)) or number != number \
            or (number < float("inf") and number != int(number)):
        raise ValueError(f"{source}: {key} is {value!r}; expected a whole number such as 512.")
    return int(min(number, _HF_NO_LIMIT))


def _boolean(value, key, source):
    """true/false from a JSON value (also the strings "true" / "false"); else one line naming the key."""
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"{source}: {key} is {value!r}; expected true or false.")


def _write_huggingface(config, directory):
    """tokenizer_config.json, special_tokens_map.json and tokenizer.json as BertTokenizerFast saves them."""
    vocab = load_vocab(config.vocab_file)
    ids = special_token_ids(vocab, f"Vocabulary file {config.vocab_file!r}")
    specials = dict(zip(HF_SPECIAL_NAMES, SPECIAL_TOKENS))
    _write_json(os.path.join(directory, HF_CONFIG), dict(
        specials, tokenizer_class="BertTokenizer", do_lower_case=config.lower_case,
        strip_accents=None, tokenize_chinese_chars=True, do_basic_tokenize=True,
        split_special_tokens=config.split_special_tokens, clean_up_tokenization_spaces=True,
        model_max_length=config.max_seq_length or 512))
    _write_json(os.path.join(directory, HF_SPECIAL_TOKENS), specials)
    template = lambda *parts: [  # noqa: E731
        {"SpecialToken": {"id": p, "type_id": t}} if p.startswith("[") else
        {"Sequence": {"id": p, "type_id": t}} for p, t in parts]
    _write_json(os.path.join(directory, HF_TOKENIZER), {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for t in SPECIAL_TOKENS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": config.lower_case},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": template(("[CLS]", 0), ("A", 0), ("[SEP]", 0)),
            "pair": template(("[CLS]", 0), ("A", 0), ("[SEP]", 0), ("B", 1), ("[SEP]", 1)),
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]}
                               for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": config.max_chars_per_word,
                  "vocab": {token: i for i, token in enumerate(vocab)}},
    })


def _read_json(path):
    return read_json(path, "the text contract written with the model; save the model again")


def _write_json(path, content):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=2, ensure_ascii=False)
        f.write("\n")


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
        return _keep_bytes(f.read())


def _vocab_from_tokenizer_json(path):
    """The WordPiece vocabulary of a Hugging Face `tokenizer.json` as a kept vocab.txt (transformers
    5 saves a BERT tokenizer as tokenizer.json without vocab.txt), or None if there is none."""
    if not os.path.isfile(path):
        return None
    model = _read_json(path).get("model") or {}
    vocab = model.get("vocab")
    if model.get("type") != "WordPiece" or not isinstance(vocab, dict) or not vocab:
        return None
    tokens = sorted(vocab, key=vocab.get)
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError(f"{path}: the WordPiece vocab's ids are not 0..{len(tokens) - 1} without gaps; "
                         f"save the tokenizer again or put its {VOCAB_NAME} beside it.")
    return _keep_bytes(("\n".join(tokens) + "\n").encode("utf-8"))


def _keep_bytes(content):
    """`content` in a content-addressed file of the temp folder (see `keep_vocab`); its path."""
    folder = os.path.join(tempfile.gettempdir(), "keras_bert_vocab")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(content).hexdigest()[:32] + ".txt")
    if not os.path.isfile(path):
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "wb") as f:
            f.write(content)
        os.replace(partial, path)
    return path
