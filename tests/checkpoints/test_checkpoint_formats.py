"""checkpoints/checkpoint_formats.py: one record per format, whose names tools list without loading TensorFlow."""

import os
import subprocess
import sys

import pytest

from keras_bert.checkpoints.checkpoint_formats import ALIASES, FORMATS, RECORDS, format_record


def test_the_table_lists_its_formats_without_tensorflow_and_resolves_aliases():
    code = ("import sys; from keras_bert.checkpoints.checkpoint_formats import FORMATS; "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules, *FORMATS)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, KERAS_BERT_LAZY_IMPORT="1")).stdout
    assert out.split() == ["False", "False", "google", "huggingface", "keras", "keras_hub"]
    assert set(FORMATS) < set(RECORDS) and set(ALIASES.values()) <= set(RECORDS)
    assert format_record("hf") is RECORDS["huggingface"] and format_record("st").name == "sentence_transformers"
    with pytest.raises(ValueError, match=r"^Unknown checkpoint format 'onnx'; expected one of \('google', .*\)\.$"):
        format_record("onnx")
