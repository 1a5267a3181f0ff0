"""models/embedder_head.py: the token vectors pooled over the mask (padding ignored), optionally normalized."""

import keras
import numpy as np

from keras_bert.models import EmbedderHead


def test_mean_pooling_ignores_padding_and_normalizes():
    sequence = np.array([[[1.0, 0.0], [3.0, 0.0], [100.0, 100.0]]], "float32")
    mask = np.array([[1, 1, 0]], "int32")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(EmbedderHead("mean", normalize=False)(sequence, mask)), [[2.0, 0.0]])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(EmbedderHead("mean")(sequence, mask)), [[1.0, 0.0]])


def test_several_modes_concatenate_and_are_the_embedding_options():
    head = EmbedderHead(["cls", "max"], normalize=False)
    sequence = np.array([[[1.0, 5.0], [3.0, 0.0]]], "float32")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(head(sequence, np.ones((1, 2), "int32"))), [[1.0, 5.0, 3.0, 5.0]])
    assert head.embedding_options() == {"pooling": "cls,max", "normalize": False}
    assert head.google_variables() == [] and head.dtype_policy.name == "float32"
