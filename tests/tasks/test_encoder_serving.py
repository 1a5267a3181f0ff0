"""tasks/encoder_serving.py: a bare encoder is served as pooled_output and sequence_output only."""

import numpy as np

import keras_bert
from keras_bert.export.serving_module import build_serving
from keras_bert.tasks.encoder_serving import EncoderServing
from keras_bert.tasks.registry import serving_for
from tests.models.tiny_bert import TINY, encoder_batch


def test_an_encoder_serves_its_pooled_and_sequence_outputs():
    encoder = keras_bert.build_encoder(TINY)
    assert serving_for(encoder) is EncoderServing
    outputs = encoder(encoder_batch(), training=False)
    served = build_serving(encoder, seq_length=8).serving_outputs(outputs)
    assert sorted(served) == ["pooled_output", "sequence_output"]
    np.testing.assert_array_equal(served["pooled_output"], outputs["pooled_output"])
    assert EncoderServing.single_text_output == ("embedder", "pooled_output")
