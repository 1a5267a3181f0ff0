"""The export formats: one record each (name, folder, writer, checker, what it needs), in one tuple.

`export_model` iterates `FORMAT_RECORDS`; adding a format (OpenVINO, Core ML, ...) is one module with its
writer and one record here. Importing this module loads no TensorFlow (each writer imports its module when
called), so `tools/export.py --formats` lists the records' names (`FORMATS`) fast.
A writer takes `(model, path, job)`: `job` is an `ExportJob` (tokenizer, seq_length, task options,
sample texts, precision) and it returns a `verify.ExportReport` without raising on a failed check.
"""

import dataclasses
from typing import Any, Callable, Optional


@dataclasses.dataclass(frozen=True)
class ExportJob:
    """What every writer of one `export_model` call is given (see `export_model`'s arguments)."""

    tokenizer: Any = None
    seq_length: int = 128
    options: Optional[dict] = None
    sample_texts: Any = None
    precision: str = "fp32"


@dataclasses.dataclass(frozen=True)
class ExportFormat:
    """One export format.

    Args:
        name: its `--formats` name.
        folder: where its version folder lives under `<base>/<model name>/` ("" for the version folder
            itself: TF Serving's SavedModel, which is moved into place last and listed in models.config).
        write: `(model, path, job) -> verify.ExportReport`.
        check: `(model, job) -> None`, raising a one-line error before any format is written; or None.
        needs_tokenizer: the format packs the vocabulary (refused without one).
        takes_precision: `job.precision` applies to it (the others are float32).
        default: written when no formats are named (`DEFAULT_FORMATS`); else on request.
    """

    name: str
    folder: str
    write: Callable
    check: Optional[Callable] = None
    needs_tokenizer: bool = False
    takes_precision: bool = False
    default: bool = True

    @property
    def served(self):
        """Whether TF Serving watches this format's folder (the version folder itself)."""
        return self.folder == ""


def _common(job):
    return dict(tokenizer=job.tokenizer, seq_length=job.seq_length, sample_texts=job.sample_texts,
                raise_on_failure=False)


def _saved_model(model, path, job):
    from keras_bert.export.saved_model import export_saved_model  # pylint: disable=import-outside-toplevel

    return export_saved_model(model, path, options=job.options, precision=job.precision, **_common(job))


def _tflite(model, path, job):
    from keras_bert.export.tflite import export_tflite  # pylint: disable=import-outside-toplevel

    return export_tflite(model, path, options=job.options, **_common(job))


def _onnx(model, path, job):
    from keras_bert.export.onnx import export_onnx  # pylint: disable=import-outside-toplevel

    return export_onnx(model, path, options=job.options, **_common(job))


def _hub(model, path, job):
    from keras_bert.export.hub import export_tfhub  # pylint: disable=import-outside-toplevel

    return export_tfhub(model, path, **_common(job))


def _check_hub(model, job):
    from keras_bert.models.model_operations import find_encoder  # pylint: disable=import-outside-toplevel
    from keras_bert.models.bert_encoder import BertEncoder  # pylint: disable=import-outside-toplevel
    from keras_bert.models.families import family_of  # pylint: disable=import-outside-toplevel

    encoder = find_encoder(model)
    if not isinstance(encoder, BertEncoder):  # ModernBERT: rotary positions, no token types, no pooler
        raise ValueError(f"--formats hub: TF Hub's BERT encoder interface (Model Garden's) holds BERT-shaped "
                         f"encoders, not a {family_of(encoder.config).name} one; export it as savedmodel, "
                         "tflite or onnx.")


def _mediapipe(model, path, job):
    from keras_bert.export.mediapipe import export_mediapipe  # pylint: disable=import-outside-toplevel

    return export_mediapipe(model, path, options=job.options, **_common(job))


def _check_mediapipe(model, job):
    from keras_bert.export.mediapipe import (  # pylint: disable=import-outside-toplevel
        check_mediapipe_labels, check_mediapipe_tokenizer, mediapipe_task)

    mediapipe_task(model)
    check_mediapipe_tokenizer(job.tokenizer)
    check_mediapipe_labels((job.options or {}).get("labels") or (getattr(model, "task_config", None) or {}).get("labels"))


FORMAT_RECORDS = (
    ExportFormat("savedmodel", "", _saved_model, takes_precision=True),
    ExportFormat("tflite", "tflite", _tflite),
    ExportFormat("onnx", "onnx", _onnx),
    ExportFormat("hub", "hub", _hub, check=_check_hub, default=False),
    ExportFormat("mediapipe", "mediapipe", _mediapipe, check=_check_mediapipe, needs_tokenizer=True, default=False),
)
FORMATS = tuple(record.name for record in FORMAT_RECORDS)  # the tool's --formats choices
DEFAULT_FORMATS = tuple(record.name for record in FORMAT_RECORDS if record.default)


def format_records():
    """`{name: ExportFormat}` of the registered formats, in order (read at call time, so a record
    appended to `FORMAT_RECORDS` takes part)."""
    return {record.name: record for record in FORMAT_RECORDS}
