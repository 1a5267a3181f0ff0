"""models/span_head.py: start and end logits per token from one dense(2), run_squad.py's names."""

import keras
import numpy as np
import pytest

from keras_bert.models import SpanHead


def test_start_and_end_are_the_two_columns_of_one_dense():
    head = SpanHead()
    features = np.random.default_rng(0).normal(size=(2, 5, 16)).astype("float32")
    out = keras.tree.map_structure(keras.ops.convert_to_numpy, head(features))
    kernel, bias = head.get_weights()
    logits = features @ kernel + bias
    np.testing.assert_allclose(out["start_logits"], logits[..., 0], atol=1e-5)
    np.testing.assert_allclose(out["end_logits"], logits[..., 1], atol=1e-5)
    assert [name for name, _, _ in head.google_variables()] == ["cls/squad/output_weights", "cls/squad/output_bias"]


def test_a_span_head_has_two_outputs_and_no_dropout():
    with pytest.raises(ValueError, match="SpanHead has 2 outputs"):
        SpanHead(3)
    with pytest.raises(ValueError, match="dropout_rate=0.1"):
        SpanHead(dropout_rate=0.1)
    assert SpanHead.from_weights({}).num_outputs == 2
