"""export/formats.py: one record per export format, whose names are the tool's --formats choices."""

import os
import subprocess
import sys

import pytest

from keras_bert.export import formats
from keras_bert.export.formats import DEFAULT_FORMATS, FORMAT_RECORDS, ExportFormat, ExportJob, format_records


def test_the_records_are_the_export_choices_in_order_with_distinct_folders():
    code = ("import sys; from keras_bert.export.formats import FORMATS; "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules, *FORMATS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, KERAS_BERT_LAZY_IMPORT="1")).stdout  # what tools/export.py --help lists
    assert out.split() == ["False", "False", "savedmodel", "tflite", "onnx", "hub", "mediapipe"]
    assert DEFAULT_FORMATS == ("savedmodel", "tflite", "onnx")  # hub and mediapipe on request
    records = format_records()
    assert len({record.folder for record in FORMAT_RECORDS}) == len(FORMAT_RECORDS)
    assert [name for name, record in records.items() if record.served] == ["savedmodel"]
    assert [name for name, record in records.items() if record.takes_precision] == ["savedmodel"]
    assert records["mediapipe"].needs_tokenizer and records["mediapipe"].check is not None


def test_a_record_appended_later_takes_part(monkeypatch):
    extra = ExportFormat("openvino", "openvino", write=lambda model, path, job: None)
    monkeypatch.setattr(formats, "FORMAT_RECORDS", FORMAT_RECORDS + (extra,))
    assert format_records()["openvino"] is extra and not extra.served


def test_a_job_is_frozen_with_the_defaults():
    job = ExportJob()
    assert (job.seq_length, job.precision, job.options) == (128, "fp32", None)
    with pytest.raises(AttributeError):
        job.seq_length = 64  # pylint: disable=assigning-non-slot
