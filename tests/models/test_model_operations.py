"""models/model_operations.py: the encoder and head of any model, and each model class rebuilt in another dtype."""

import keras
import numpy as np
import pytest

from keras_bert.models import build_classifier, build_encoder, build_pretrainer
from keras_bert.models.model_operations import find_encoder, task_head, with_dtype

from .tiny_bert import TINY, encoder_batch, pretraining_batch, randomized


def test_find_encoder_and_task_head_in_every_model_kind():
    pretrainer = build_pretrainer(TINY)
    assert find_encoder(pretrainer) is pretrainer.encoder
    assert find_encoder(pretrainer.encoder) is pretrainer.encoder
    classifier = build_classifier(pretrainer.encoder, num_classes=2)
    assert find_encoder(classifier) is pretrainer.encoder
    assert task_head(classifier) is classifier.head and task_head(pretrainer) is None
    with pytest.raises(ValueError, match="'plain' contains no BertEncoder; pass a model built by keras_bert"):
        find_encoder(keras.Sequential([keras.layers.Dense(2)], name="plain"))


@pytest.mark.parametrize("build", [build_encoder, build_pretrainer])  # a task model: tests/export/test_precision.py
def test_each_model_class_rebuilds_itself_in_another_dtype_with_its_weights(build):
    model = randomized(build(TINY))
    model.text_config = "the contract"  # carried along as it is
    batch = pretraining_batch()[0] if "masked_lm_positions" in [i.name for i in keras.tree.flatten(model.inputs)] \
        else encoder_batch()
    served = with_dtype(model, "mixed_bfloat16")
    assert type(served) is type(model) and served.name == model.name and served.text_config == "the contract"
    assert find_encoder(served).layer_dtype == "mixed_bfloat16"
    for ours, theirs in zip(served.weights, model.weights):
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(ours), keras.ops.convert_to_numpy(theirs))
    for ours, theirs in zip(keras.tree.flatten(served(batch)), keras.tree.flatten(model(batch))):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(keras.ops.cast(ours, "float32")),
                                   keras.ops.convert_to_numpy(theirs), atol=0.1)
