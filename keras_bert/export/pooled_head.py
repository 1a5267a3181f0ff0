"""A head on the pooled `[CLS]` served with the encoder's last layer computed for `[CLS]` alone."""

import keras
import numpy as np
import tensorflow as tf

from keras_bert.models.model_operations import task_head
from keras_bert.export.serving_checks import ID_INPUTS


def pooled_head_call(model):
    """`inputs -> logits` of a builder-made task model whose head reads only `pooled_output`, with
    the encoder's last layer computed for `[CLS]` alone (`BertEncoder.pooled_output_only`: ~1.15x
    a MiniLM forward at batch 32, 1 thread); None for any other model, or if it disagrees with the
    model on a probe batch (a head assembled by hand that only looks like the builder's)."""
    head = task_head(model)
    encoder = getattr(model, "encoder", None)
    if (head is None or not head.pooled_only or not hasattr(encoder, "pooled_output_only")
            or encoder.packed or not isinstance(model.output, keras.KerasTensor)):
        return None  # an encoder without the [CLS]-only path (ModernBERT) serves its whole forward

    def call(inputs):
        pooled = encoder.pooled_output_only({name: inputs[name] for name in ID_INPUTS})
        return as_float32(head(pooled))

    second = min(1, encoder.config.type_vocab_size - 1)  # one token type (RoBERTa): all zeros
    probe = {"input_word_ids": tf.constant([[1, 2, 3, 0], [3, 2, 1, 2]], tf.int32),
             "input_mask": tf.constant([[1, 1, 1, 0], [1, 1, 1, 1]], tf.int32),
             "input_type_ids": tf.constant([[0, 0, second, 0], [0, 0, 0, second]], tf.int32)}
    expected = np.asarray(as_float32(model(probe, training=False)))
    got = np.asarray(call(probe))
    return call if got.shape == expected.shape and np.allclose(got, expected, atol=1e-5, rtol=1e-4) else None


def as_float32(tensor):
    """`tensor` in float32 if it is floating point (serving clients expect float32)."""
    return tf.cast(tensor, tf.float32) if tensor.dtype.is_floating else tensor
