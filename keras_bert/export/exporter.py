"""One call that exports a model to SavedModel, TFLite and ONNX under `savedmodels/<name>/`."""

import os
import re
import shutil

from keras_bert.errors import make_dir
from keras_bert.export import formats as format_registry
from keras_bert.export import verify
from keras_bert.export.formats import DEFAULT_FORMATS, FORMATS, ExportJob  # noqa: F401 (FORMATS re-exported)
from keras_bert.export.models_config import write_models_config
from keras_bert.tasks.registry import serving_for

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
    from keras_bert.checkpoints.hub_handle import is_handle  # pylint: disable=import-outside-toplevel
    from keras_bert.checkpoints.keras_checkpoint import load_keras_file  # pylint: disable=import-outside-toplevel

    path = os.fspath(path)
    if path.endswith(".keras"):
        return load_keras_file(path, compile=False)
    if not os.path.exists(path) and not is_handle(path):
        raise FileNotFoundError(
            f"{path} does not exist; pass a .keras file or a checkpoint directory "
            "(Google bert_model.ckpt*, Hugging Face model.safetensors, or keras_bert), or a released checkpoint "
            "(hf://ORG/NAME[@REVISION], a name such as bert_base_uncased).")
    return load_checkpoint(path, model=model)


def find_text_config(model, path=None):
    """The text contract of a model: `model.text_config` (set by load_checkpoint), else the one
    saved in `path`'s folder (e.g. next to a fine-tuned `model.keras`), else None."""
    from keras_bert.text.text_config import find_text_config as read  # pylint: disable=import-outside-toplevel

    return getattr(model, "text_config", None) or (read(path) if path else None)


def default_seq_length(model):
    """128, or the model's longest input where that is shorter (a tiny model of 64; RoBERTa's 66 rows: 64)."""
    from keras_bert.models.model_operations import find_encoder  # pylint: disable=import-outside-toplevel

    limit = getattr(getattr(find_encoder(model), "config", None), "max_sequence_length", None)
    return min(128, int(limit)) if limit else 128


def export_paths(base_dir, name, version):
    """`{format: path}`: `<base>/<name>/<format's folder>/<version>` (the SavedModel's folder is "":
    `<base>/<name>/<version>`, as TF Serving reads it)."""
    model_dir = os.path.join(base_dir, name)
    return {fmt: os.path.join(model_dir, record.folder, str(version))
            for fmt, record in format_registry.format_records().items()}


def export_model(model, name, formats=DEFAULT_FORMATS, tokenizer=None, version=None, base_dir="savedmodels",
                 seq_length=128, overwrite=False, sample_texts=None, options=None, precision="fp32"):
    """Exports `model` to each of `formats`, checks every artifact against Keras, updates models.config.

    All checks run (none stops the others); the caller decides what to do with failures:
    `all(r.ok for r in reports.values())`.

    Args:
        model: a built Keras model.
        name: TF Serving model name (letters, digits, `_`, `.`, `-`).
        formats: names of `formats.FORMAT_RECORDS`: ("savedmodel", "tflite", "onnx", "hub", "mediapipe");
            "hub" writes TF Hub reusable `encoder/` and `preprocessor/` SavedModels (see `export.hub`);
            "mediapipe" a TFLite file for MediaPipe Tasks' TextClassifier / TextEmbedder (`export.mediapipe`).
        tokenizer: `keras_bert.text.Tokenizer` for the raw-text signatures; its text contract
            (`tokenizer.text_config`) is saved with every artifact (TFLite / ONNX / hub folders:
            `vocab.txt` + `text_config.json`; SavedModel: `assets.extra/`).
        version: integer version; default: one more than the highest exported.
        base_dir: the `savedmodels` folder.
        seq_length: packed length of the text signatures.
        overwrite: replace an existing version.
        sample_texts: texts for the parity checks.
        options: one mapping of task options replacing the model's own, for every format, checked by
            the task's options: e.g. `{"labels": ["neg", "pos"]}` (`classify`, `entities`) or a SQuAD
            model's `{"doc_stride": 64}` (`answer`); see `ServingModule`.
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
    records = format_registry.format_records()
    unknown = [f for f in formats if f not in records]
    if unknown:
        raise ValueError(f"Unknown format(s) {unknown}; expected a subset of {tuple(records)}.")
    chosen = [records[f] for f in formats]
    if precision != "fp32" and not any(r.takes_precision for r in chosen):  # it would change nothing, silently
        takers = [r.name for r in records.values() if r.takes_precision]
        raise ValueError(f"precision={precision!r} sets the SavedModel's precision, but formats {list(formats)} "
                         f"has no {' or '.join(map(repr, takers))}; add it, or leave precision at 'fp32'.")
    job = ExportJob(tokenizer, seq_length, options, sample_texts, precision)
    _check_formats(model, chosen, job)  # refused before any format is written
    if version is not None and int(version) < 1:
        raise ValueError(f"version must be a positive integer, got {version}.")
    make_dir(base_dir, "base_dir (--base_dir)")
    model_dir = make_dir(os.path.join(base_dir, name), "base_dir (--base_dir)")
    version, staging = _reserve_version(model_dir, name, version, formats, overwrite)
    try:
        staged = export_paths(os.path.dirname(staging), os.path.basename(staging), version)
        reports = _export_formats(model, chosen, staged, job)
        paths = export_paths(base_dir, name, version)
        for record in sorted(chosen, key=lambda r: r.served):  # the version TF Serving watches last
            fmt = record.name
            if not os.path.exists(staged[fmt]):  # not converted: nothing to move (its report says why)
                continue
            _move_into_place(staged[fmt], paths[fmt], staging)
            reports[fmt].path = paths[fmt]
            reports[fmt].extra = _relocated(reports[fmt].extra, staged[fmt], paths[fmt])
    finally:
        _remove_staging(staging)
    if any(record.served for record in chosen):
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


def _check_formats(model, records, job):
    """Each chosen format's refusals (one line each), before anything is written."""
    if job.options:  # the task options: one line naming an option the model's task does not take
        serving_for(model).checked_options(model, job.options)
    for record in records:
        if record.needs_tokenizer and job.tokenizer is None:
            raise ValueError(f"--formats {record.name} packs the vocabulary into the file: the model needs its "
                             "text contract (vocab.txt); pass --vocab.")
        if record.check is not None:
            record.check(model, job)


def _relocated(value, staged, final):
    """`value` (a report's extra: paths, in dicts and lists) with paths under `staged` moved to `final`."""
    if isinstance(value, dict):
        return {k: _relocated(v, staged, final) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_relocated(v, staged, final) for v in value)
    if isinstance(value, str) and (value == staged or value.startswith(staged + os.sep)):
        return final + value[len(staged):]
    return value


def _export_formats(model, records, paths, job):
    """Writes and verifies every format at `paths` (inside the staging folder); `{format: report}`."""
    reports = {}
    for record in records:
        try:
            reports[record.name] = record.write(model, paths[record.name], job)
        except verify.ConversionError as error:  # this model does not convert to this format: a FAIL row
            shutil.rmtree(paths[record.name], ignore_errors=True)
            reports[record.name] = verify.conversion_failed(record.name, None, error)
            continue
        if not record.served and job.tokenizer is not None and os.path.isdir(paths[record.name]):
            # the text contract beside the files (the SavedModel holds it in assets.extra/)
            job.tokenizer.text_config.replace(max_seq_length=job.seq_length).save(paths[record.name])
    return reports


def _taken_versions(model_dir):
    """Every version number in use under `model_dir`: exported (any format) or being exported."""
    folders = {os.path.join(model_dir, r.folder) for r in format_registry.FORMAT_RECORDS}
    taken = {int(d) for folder in folders if os.path.isdir(folder) for d in os.listdir(folder) if d.isdigit()}
    return taken | {int(m.group(1)) for d in os.listdir(model_dir) for m in [STAGING.fullmatch(d)] if m}


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
