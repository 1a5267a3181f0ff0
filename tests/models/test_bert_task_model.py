"""models/bert_task_model.py: a task model carries its task and JSON task options; its parts are found by type."""

import keras
import numpy as np
import pytest

from keras_bert.models import BertTaskModel, builders
from keras_bert.models.bert_encoder import encoder_inputs

from .tiny_bert import TINY, encoder_batch


def test_task_config_is_a_copy_updated_only_through_with_task_config():
    model = builders.build_classifier(TINY, 2, task_config={"labels": ["neg", "pos"]})
    assert model.task == "classification" and type(model.head).__name__ == "SequenceHead"
    model.task_config["labels"].append("x")  # a copy: the model's options are unchanged
    assert model.task_config == {"labels": ["neg", "pos"]}
    assert model.with_task_config(seq_length=16) is model
    assert model.task_config == {"labels": ["neg", "pos"], "seq_length": 16}
    assert model.get_config()["task_config"] == model.task_config


def test_task_config_must_be_json():
    inputs = encoder_inputs()
    with pytest.raises(TypeError, match="task_config must be JSON-able"):
        BertTaskModel(inputs, builders.build_encoder(TINY)(inputs)["pooled_output"], task_config={"f": object()})


def test_a_model_without_an_encoder_or_a_head_says_so():
    x = keras.Input((4,), name="x")
    bare = BertTaskModel(x, keras.layers.Dense(2)(x))
    assert bare.head is None and bare.row_model() is bare
    with pytest.raises(ValueError, match="holds no BertEncoder"):
        bare.encoder  # pylint: disable=pointless-statement
    with pytest.raises(ValueError, match="has no TaskHead to rebuild"):
        bare.with_dtype("mixed_bfloat16")


def test_multiple_choice_row_model_scores_rows_and_a_classifier_is_its_own():
    classifier = builders.build_classifier(TINY, 2)
    assert classifier.row_model() is classifier
    choice = builders.build_multiple_choice(builders.build_encoder(TINY))
    rows = choice.row_model()(encoder_batch(), training=False)  # [rows, seq] -> one score per row
    assert tuple(np.shape(rows))[0] == 3
