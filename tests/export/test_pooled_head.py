"""export/pooled_head.py: a pooled-only head served with [CLS] alone, equal to the model; others get None."""

import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.export.pooled_head import as_float32, pooled_head_call
from tests.models.tiny_bert import TINY, encoder_batch


def test_a_classifier_is_served_from_cls_alone_with_the_same_logits():
    model = keras_bert.build_classifier(TINY, num_classes=3)
    call = pooled_head_call(model)
    assert call is not None
    batch = encoder_batch()
    np.testing.assert_allclose(np.asarray(call(batch)), np.asarray(model(batch, training=False)), atol=1e-5)


def test_a_head_that_reads_the_sequence_gets_none():
    assert pooled_head_call(keras_bert.build_token_classifier(TINY, num_labels=3)) is None
    assert pooled_head_call(keras_bert.build_encoder(TINY)) is None


def test_as_float32_leaves_integers():
    assert as_float32(tf.constant([1], tf.int32)).dtype == tf.int32
    assert as_float32(tf.constant([1], tf.float16)).dtype == tf.float32


def test_an_encoder_without_the_cls_only_path_gets_none():
    """ModernBERT pools after its last layer (cls or mean): its classifier serves the whole forward."""
    from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

    encoder = ModernBertEncoder(ModernBertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2,
                                                 intermediate_size=16, local_attention=8))
    assert pooled_head_call(keras_bert.build_classifier(encoder, num_classes=2)) is None
