"""How the text contract's JSON files are read and written: whole numbers and booleans as tools
and people write them, one-line errors naming the file and key, and content-addressed vocab copies.
Imports no TensorFlow."""

import hashlib
import json
import os
import tempfile

from keras_bert.config import read_json as _read_config_json

NO_LIMIT = 10 ** 12  # transformers writes int(1e30) for "no model_max_length"


def integer(value, key, source):
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
    return int(min(number, NO_LIMIT))


def boolean(value, key, source):
    """true/false from a JSON value (also the strings "true" / "false"); else one line naming the key."""
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"{source}: {key} is {value!r}; expected true or false.")


def read_json(path):
    try:
        return _read_config_json(path, "the text contract written with the model; save the model again")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text (byte {error.start}; the file is cut or damaged); "
                         "save the model again.") from None


def write_json(path, content):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=2, ensure_ascii=False)
        f.write("\n")


def keep_bytes(content):
    """`content` in a content-addressed file of the temp folder (see `text_config.from_saved_assets`); its path."""
    folder = os.path.join(tempfile.gettempdir(), "keras_bert_vocab")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(content).hexdigest()[:32] + ".txt")
    if not os.path.isfile(path):
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "wb") as f:
            f.write(content)
        os.replace(partial, path)
    return path
