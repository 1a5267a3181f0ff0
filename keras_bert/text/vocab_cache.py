"""build_vocab_once: a run folder's learnt vocab.txt (or byte-level BPE), built on the first run and reused on resume."""

import json
import os
import pathlib

from keras_bert.text.tokenizer_kinds import KINDS

SETTINGS_NAME = "vocab_settings.json"


def build_vocab_once(folder, files, vocab_size, lower_case=True, learn_params=None, folder_flag="folder",
                     kind="wordpiece"):
    """`folder/vocab.txt`, learnt from `files` by `build_vocab` unless an earlier run did so with
    the same settings; one built with other settings is refused in one line.

    The settings are recorded beside it in `vocab_settings.json` under the names of
    tools/pretrain.py's flags (`build_vocab`, `cased`, `files`), so the error names the flag
    that changed.

    Args:
        folder: the run folder (created if needed).
        files: the text files the vocabulary is learnt from.
        vocab_size, lower_case, learn_params: as for `build_vocab`.
        folder_flag: how the error names `folder` (e.g. "--output_dir").
        kind: "wordpiece" (`vocab.txt`) or "byte_bpe" (`vocab.json` + `merges.txt`, `learn_byte_bpe`;
            `lower_case` and `learn_params` do not apply); the path of vocab.txt / vocab.json is returned.

    Example:
        >>> vocab_path = build_vocab_once("runs/demo", ["a.txt"], 4000)  # doctest: +SKIP
    """
    learnt_kind = KINDS.get(kind)
    if learnt_kind is None or learnt_kind.learn is None:
        learnt = ", ".join(name for name, other in KINDS.items() if other.learn)
        raise ValueError(f"Learning a {kind} vocabulary is not supported ({learnt}); pass the model's "
                         "tokenizer files instead.")
    os.makedirs(folder, exist_ok=True)
    vocab, settings = check_vocab_settings(folder, files, vocab_size, lower_case, folder_flag, kind)
    if os.path.exists(vocab):
        return vocab
    learnt_kind.learn(files, vocab_size, folder, lower_case, learn_params)
    pathlib.Path(os.path.join(folder, SETTINGS_NAME)).write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return vocab


def check_vocab_settings(folder, files, vocab_size, lower_case=True, folder_flag="folder", kind="wordpiece"):
    """`(path, settings)`: where `build_vocab_once` keeps `folder`'s vocab (vocab.txt, vocab.json) and the settings
    it is learnt with; one that an earlier run built there with other settings is refused in one line. Plain
    Python: tools/pretrain.py checks a run folder before TensorFlow loads."""
    vocab = os.path.join(folder, KINDS[kind].files[0])
    record = os.path.join(folder, SETTINGS_NAME)
    settings = {"build_vocab": vocab_size, "cased": not lower_case, "files": [os.path.abspath(f) for f in files]}
    if os.path.exists(vocab):
        old = json.loads(pathlib.Path(record).read_text(encoding="utf-8")) if os.path.exists(record) else {}
        changed = [f"--{k} {old.get(k)!r} -> {v!r}" if k != "files" else "--files"
                   for k, v in settings.items() if old.get(k) != v]
        if changed:
            raise ValueError(f"{vocab} was built with other settings ({', '.join(changed)}); pass a new "
                             f"{folder_flag}, or delete that folder to start fresh.")
    return vocab, settings
