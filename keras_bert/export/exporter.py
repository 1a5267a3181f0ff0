"""One call that exports a model to SavedModel, TFLite and ONNX under `savedmodels/<name>/`."""

import os
import re


from keras_bert.choices import DEFAULT_EXPORT_FORMATS as DEFAULT_FORMATS
from keras_bert.choices import EXPORT_FORMATS as FORMATS
from keras_bert.export import verify
from keras_bert.export.onnx import export_onnx
from keras_bert.export.saved_model import export_saved_model, next_version
from keras_bert.export.serving_config import write_models_config
from keras_bert.export.tflite import export_tflite
from keras_bert.export.hub import export_tfhub
from keras_bert.export.mediapipe import check_mediapipe_tokenizer, export_mediapipe, mediapipe_task
from keras_bert.errors import make_dir


def load_model(path):
    """A Keras model from a `.keras` file (any keras_bert model) or a checkpoint directory.

    Checkpoint directories (Google TF1, Hugging Face, keras_bert) load with
    `keras_bert.load_checkpoint(path, model="auto")`: a pretrainer if the checkpoint has
    the pretraining heads, else an encoder.
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
    return load_checkpoint(path, model="auto")


def find_text_config(model, path=None):
    """The text contract of a model: `model.text_config` (set by load_checkpoint), else the one
    saved in `path`'s folder (e.g. next to a fine-tuned `model.keras`), else None."""
    from keras_bert.text.text_config import find_text_config as read  # pylint: disable=import-outside-toplevel

    return getattr(model, "text_config", None) or (read(path) if path else None)


def export_paths(base_dir, name, version):
    """`{format: path}`: `<base>/<name>/<version>` (SavedModel), `<base>/<name>/{tflite,onnx,hub,mediapipe}/<version>`."""
    model_dir = os.path.join(base_dir, name)
    return {"savedmodel": os.path.join(model_dir, str(version)),
            "tflite": os.path.join(model_dir, "tflite", str(version)),
            "onnx": os.path.join(model_dir, "onnx", str(version)),
            "hub": os.path.join(model_dir, "hub", str(version)),
            "mediapipe": os.path.join(model_dir, "mediapipe", str(version))}


def export_model(model, name, formats=DEFAULT_FORMATS, tokenizer=None, version=None, base_dir="savedmodels",
                 seq_length=128, overwrite=False, sample_texts=None, labels=None, squad=None):
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
    if "mediapipe" in formats:  # refused before any format is written
        mediapipe_task(model)
        check_mediapipe_tokenizer(tokenizer)
    make_dir(base_dir, "base_dir (--base_dir)")
    if version is None:
        version = next_version(os.path.join(base_dir, name))
    version = int(version)
    if version < 1:
        raise ValueError(f"version must be a positive integer, got {version}.")
    paths = export_paths(base_dir, name, version)
    existing = [paths[f] for f in formats if os.path.exists(paths[f])]
    if existing and not overwrite:
        raise FileExistsError(
            f"Version {version} of {name!r} already exists ({', '.join(existing)}). Pass a new "
            "--version, or --overwrite to replace it.")
    common = dict(overwrite=overwrite, sample_texts=sample_texts, raise_on_failure=False)
    reports = {}
    if "savedmodel" in formats:
        reports["savedmodel"] = export_saved_model(model, paths["savedmodel"], tokenizer=tokenizer,
                                            seq_length=seq_length, labels=labels, squad=squad, **common)
        write_models_config(base_dir)
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


def parity_table(reports):
    """One table of every parity row in `{format: ExportReport}`."""
    return verify.format_table([row for report in reports.values() for row in report.rows])
