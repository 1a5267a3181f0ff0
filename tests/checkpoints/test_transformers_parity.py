"""compare_with_transformers on a tiny random checkpoint (the MiniLM test covers real weights)."""

import pytest

from keras_bert.checkpoints import compare_with_transformers, load_checkpoint
from keras_bert.models import BertEncoder


def test_compare_with_transformers_reports_small_diffs(hf_pretraining_dir):
    pytest.importorskip("torch")
    encoder = load_checkpoint(hf_pretraining_dir)
    sentences = ["tok1 tok2 tok3", "tok4"]
    pairs = [("tok5 tok6", "tok7"), ("tok8", "tok9 tok10 tok11")]
    diffs = compare_with_transformers(encoder, hf_pretraining_dir, sentences=sentences, pairs=pairs)
    assert diffs["num_examples"] == 4
    assert diffs["sequence_output"] <= 1e-4 and diffs["pooled_output"] <= 1e-4
    # A different (random) encoder of the same shape must be reported as far off.
    fresh = BertEncoder(encoder.config)
    diffs = compare_with_transformers(fresh, hf_pretraining_dir, sentences=sentences, pairs=pairs)
    assert diffs["sequence_output"] > 1e-2
