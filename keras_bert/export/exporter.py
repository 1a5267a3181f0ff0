"""One call that exports a model to SavedModel, TFLite and ONNX under `savedmodels/<name>/`."""

import os
import re
import shutil

from keras_bert.choices import DEFAULT_EXPORT_FORMATS as DEFAULT_FORMATS
from keras_bert.choices import EXPORT_FORMATS as FORMATS
from keras_bert.export import verify
from keras_bert.export.onnx import export_onnx
from keras_bert.export.saved_model import export_saved_model
from keras_bert.export.serving_config import write_models_config
from keras_bert.export.tflite import export_tflite
from keras_bert.export.hub import export_tfhub
from keras_bert.export.mediapipe import (check_mediapipe_labels, check_mediapipe_tokenizer, export_mediapipe,
                                         mediapipe_task)
from keras_bert.errors import make_dir

# The folder an export writes into before its files are renamed into place: <name>/.tmp-<version>.
STAGING = re.compile(r"\.tmp-(\d+)")


def load_model(path, model="auto"):
    """A Keras model from a `.keras` file (any keras_bert model) or a checkpoint directory.

    Checkpoint directories (Google TF1, Hugging Face, keras_bert, keras-hub, sentence-transformers)
    load with `keras_bert.load_checkpoint(path, model=model)`; "auto": the task model of a
    fine-tuned head (Hugging Face), the sentence embedder of a sentence-transformers folder, a
    pretrainer if the checkpoint has the pretraining heads, else an encoder.
    """
    from keras_bert.checkpoints import load_checkpoint  # pylint: disable=import-outside-toplevel
    from keras_bert.checkpoints.keras_checkpoint import load_keras_file  # pylint: disable=import-outside-toplevel

    path = os.fspath(path)
    if path.endswith(".keras"):
        return load_keras_file(path, compile=False)
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{path} does not exist; pass a .keras file or a checkpoint directory "
            "(Google bert_model.ckpt*, Hugging Face model.safetensors, or keras_bert).")
    return load_checkpoint(path, model=model)


def find_text_config(model, path=None):
    """The text contract of a model: `model.text_config` (set by load_checkpoint), else the one
    saved in `path`'s folder (e.g. next to a fine-tuned `model.keras`), else None."""
    from keras_bert.text.text_config import find_text_config as read  # pylint: disable=import-outside-toplevel

    return getattr(model, "text_config", None) or (read(path) if path else None)


def default_seq_length(model):
    """128, or the model's max_position_embeddings where that is shorter (a tiny model of 64)."""
    from keras_bert.checkpoints.weight_map import find_encoder  # pylint: disable=import-outside-toplevel

    limit = getattr(getattr(find_encoder(model), "config", None), "max_position_embeddings", None)
    return min(128, int(limit)) if limit else 128


def export_paths(base_dir, name, version):
    """`{format: path}`: `<base>/<name>/<version>` (SavedModel), `<base>/<name>/{tflite,onnx,hub,mediapipe}/<version>`."""
    model_dir = os.path.join(base_dir, name)
    return {"savedmodel": os.path.join(model_dir, str(version)),
            "tflite": os.path.join(model_dir, "tflite", str(version)),
            "onnx": os.path.join(model_dir, "onnx", str(version)),
            "hub": os.path.join(model_dir, "hub", str(version)),
            "mediapipe": os.path.join(model_dir, "mediapipe", str(version))}


def export_model(model, name, formats=DEFAULT_FORMATS, tokenizer=None, version=None, base_dir="savedmodels",
                 seq_length=128, overwrite=False, sample_texts=None, labels=None, squad=None, precision="fp32"):
    """Exports `model` to each of `formats`, checks every artifact against Keras, updates models.config.

    All checks run (none stops the others); the caller decides what to do with failures:
    `all(r.ok for r in reports.values())`.

    Args:
        model: a built Keras model.
        name: TF Serving model name (letters, digits, `_`, `.`, `-`).
        formats: subset of ("savedmodel", "tflite", "onnx", "hub", "mediapipe"); "hub" writes TF Hub reusable
            `encoder/` and `preprocessor/` SavedModels (see `export.hub`); "mediapipe" a TFLite file
            for MediaPipe Tasks' TextClassifier / TextEmbedder (see `export.mediapipe`).
        tokenizer: `keras_bert.text.Tokenizer` for the raw-text signatures; its text contract
            (`tokenizer.text_config`) is saved with every artifact (TFLite / ONNX / hub folders:
            `vocab.txt` + `text_config.json`; SavedModel: `assets.extra/`).
        version: integer version; default: one more than the highest exported.
        base_dir: the `savedmodels` folder.
        seq_length: packed length of the text signatures.
        overwrite: replace an existing version.
        sample_texts: texts for the parity checks.
        labels, squad: the SavedModel's task signatures (`classify` / `entities`, `answer`);
            see `saved_model`.
        precision: the SavedModel's compute precision, "fp32" or "bf16" (see `saved_model`); the
            other formats are float32.

    Returns:
        `{format: verify.ExportReport}`.

    Example:
        >>> reports = export_model(classifier, "sst2", tokenizer=Tokenizer("vocab.txt"))
        >>> print(verify.format_table([r for rep in reports.values() for r in rep.rows]))
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name or ""):
        raise ValueError(f"Model name {name!r} must be letters, digits, '_', '.' or '-' (TF Serving's rule).")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"Unknown format(s) {unknown}; expected a subset of {FORMATS}.")
    if precision != "fp32" and "savedmodel" not in formats:  # it would otherwise change nothing, silently
        raise ValueError(f"precision={precision!r} sets the SavedModel's precision, but formats {list(formats)} "
                         f"has no 'savedmodel'; add it, or leave precision at 'fp32'.")
    if "mediapipe" in formats:  # refused before any format is written
        mediapipe_task(model)
        check_mediapipe_tokenizer(tokenizer)
        check_mediapipe_labels(labels or (getattr(model, "task_config", None) or {}).get("labels"))
    make_dir(base_dir, "base_dir (--base_dir)")
    model_dir = make_dir(os.path.join(base_dir, name), "base_dir (--base_dir)")
    if version is not None and int(version) < 1:
        raise ValueError(f"version must be a positive integer, got {version}.")
    version, staging = _reserve_version(model_dir, name, version, formats, overwrite)
    try:
        staged = export_paths(os.path.dirname(staging), os.path.basename(staging), version)
        reports = _export_formats(model, formats, staged, tokenizer, seq_length, sample_texts, labels, squad,
                                   precision)
        paths = export_paths(base_dir, name, version)
        for fmt in sorted(formats, key=lambda f: f == "savedmodel"):  # the version TF Serving watches last
            _move_into_place(staged[fmt], paths[fmt], staging)
            reports[fmt].path = paths[fmt]
            reports[fmt].extra = _relocated(reports[fmt].extra, staged[fmt], paths[fmt])
    finally:
        _remove_staging(staging)
    if "savedmodel" in formats:
        write_models_config(base_dir)
    return reports


def _remove_staging(staging):
    """Removes the staging folder, also while Ctrl-C repeats (`keras_bert.cli.ctrl_c` raises KeyboardInterrupt
    every second until the tool stops): an interrupted removal goes on, then the interrupt does."""
    interrupted = None
    for _ in range(20):
        try:
            shutil.rmtree(staging, ignore_errors=True)
            break
        except KeyboardInterrupt as error:
            interrupted = error
    if interrupted is not None:
        raise interrupted


def _relocated(value, staged, final):
    """`value` (a report's extra: paths, in dicts and lists) with paths under `staged` moved to `final`."""
    if isinstance(value, dict):
        return {k: _relocated(v, staged, final) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_relocated(v, staged, final) for v in value)
    if isinstance(value, str) and (value == staged or value.startswith(staged + os.sep)):
        return final + value[len(staged):]
    return value


def _export_formats(model, formats, paths, tokenizer, seq_length, sample_texts, labels, squad, precision):
    """Writes and verifies every format at `paths` (inside the staging folder); `{format: report}`."""
    common = dict(sample_texts=sample_texts, raise_on_failure=False)
    reports = {}
    if "savedmodel" in formats:
        reports["savedmodel"] = export_saved_model(model, paths["savedmodel"], tokenizer=tokenizer,
                                                   seq_length=seq_length, labels=labels, squad=squad,
                                                   precision=precision, **common)
    if "tflite" in formats:
        reports["tflite"] = export_tflite(model, paths["tflite"], tokenizer=tokenizer,
                                          seq_length=seq_length, labels=labels, **common)
    if "onnx" in formats:
        reports["onnx"] = export_onnx(model, paths["onnx"], tokenizer=tokenizer, labels=labels, squad=squad,
                                      seq_length=seq_length, **common)
    if "hub" in formats:
        reports["hub"] = export_tfhub(model, paths["hub"], tokenizer=tokenizer, seq_length=seq_length, **common)
    if "mediapipe" in formats:
        reports["mediapipe"] = export_mediapipe(model, paths["mediapipe"], tokenizer, seq_length=seq_length,
                                                labels=labels, **common)
    for fmt in set(formats) - {"savedmodel"}:  # the SavedModel holds it in assets.extra/
        if tokenizer is not None and os.path.isdir(paths[fmt]):
            tokenizer.text_config.replace(max_seq_length=seq_length).save(paths[fmt])
    return reports


def _taken_versions(model_dir):
    """Every version number in use under `model_dir`: exported (any format) or being exported."""
    taken = set()
    for folder in (model_dir, *(os.path.join(model_dir, f) for f in ("tflite", "onnx", "hub", "mediapipe"))):
        if os.path.isdir(folder):
            taken.update(int(d) for d in os.listdir(folder) if d.isdigit())
    taken.update(int(m.group(1)) for d in os.listdir(model_dir) for m in [STAGING.fullmatch(d)] if m)
    return taken


def _reserve_version(model_dir, name, version, formats, overwrite):
    """`(version, staging folder)`: the folder `<name>/.tmp-<version>` is created exclusively
    (`os.mkdir`), so two exports of one name never write the same version; it holds the writer's pid.

    With `version` None, the next free version (one more than the highest taken); otherwise that
    version, refused if it exists (unless `overwrite`) or another live process is exporting it.
    """
    for folder in os.listdir(model_dir):  # leftovers of killed exports
        if STAGING.fullmatch(folder) and _staging_owner(os.path.join(model_dir, folder)) is None:
            shutil.rmtree(os.path.join(model_dir, folder), ignore_errors=True)
    while True:
        wanted = max(_taken_versions(model_dir), default=0) + 1 if version is None else int(version)
        paths = export_paths(os.path.dirname(model_dir), name, wanted)
        existing = [paths[f] for f in formats if os.path.lexists(paths[f])]
        if existing and not overwrite:
            raise FileExistsError(
                f"Version {wanted} of {name!r} already exists ({', '.join(existing)}). Pass a new "
                "--version, or --overwrite to replace it.")
        staging = os.path.join(model_dir, f".tmp-{wanted}")
        try:
            os.mkdir(staging)
        except FileExistsError:
            owner = _staging_owner(staging)
            if owner is None:  # left by an export that was killed: take its place
                shutil.rmtree(staging, ignore_errors=True)
            elif version is not None:
                raise FileExistsError(
                    f"Version {wanted} of {name!r} is being exported by another process (pid {owner}, "
                    f"{staging}); pass another --version, or wait for it to finish.") from None
            continue
        with open(os.path.join(staging, "pid"), "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        return wanted, staging


def _staging_owner(staging):
    """The pid of the live process exporting into `staging`, or None if it is gone (killed)."""
    try:
        with open(os.path.join(staging, "pid"), encoding="utf-8") as f:
            pid = int(f.read())
    except (OSError, ValueError):  # just created, pid not written yet: count it as live
        return "unknown"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return pid


def _move_into_place(staged, final, staging):
    """Renames `staged` to `final`; an existing `final` (--overwrite) is first renamed aside and then
    removed: a symlink is replaced, the folder it points to is left untouched."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    old = None
    if os.path.lexists(final):
        old = os.path.join(staging, "replaced-" + os.path.basename(os.path.dirname(final)) + "-"
                           + os.path.basename(final))
        os.rename(final, old)
    os.rename(staged, final)
    if old and os.path.islink(old):
        os.unlink(old)
    elif old:
        shutil.rmtree(old, ignore_errors=True)


def parity_table(reports):
    """One table of every parity row in `{format: ExportReport}`."""
    return verify.format_table([row for report in reports.values() for row in report.rows])
