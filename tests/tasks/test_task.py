"""Task's defaults, and the helpers every task shares: collect, check_classes, freeze_pooler."""

import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.tasks.task import Task, check_classes, collect, freeze_pooler


def test_collect_concatenates_one_element_of_every_batch():
    features = {"ids": np.arange(10).reshape(5, 2)}
    dataset = tf.data.Dataset.from_tensor_slices((features, np.arange(5))).batch(2)
    np.testing.assert_array_equal(collect(dataset, 1), np.arange(5))
    np.testing.assert_array_equal(collect(dataset, 0)["ids"], features["ids"])


def test_check_classes_refuses_one_class_data():
    check_classes("train.csv", "label", np.array([0, 1, 0]), ["neg", "pos"])
    with pytest.raises(ValueError, match="train.csv: every training example has the label 'pos' "
                                         r"\(--label / label= 'label'\)"):
        check_classes("train.csv", "label", np.array([1, 1]), ["neg", "pos"])


def test_base_task_settings_and_defaults(tokenizer):
    task = Task(tokenizer, "64", 8.0, seed="3")
    assert (task.seq_length, task.batch_size, task.seed) == (64, 8, 3)
    assert task.identity() == {"seq_length": 64, "batch_size": 8}
    assert task.validation_data("eval") == "eval"
    assert set(task.compile_kwargs()) == {"loss", "metrics"}
    with pytest.raises(NotImplementedError):
        task.read("train.csv", training=True)


def test_a_frozen_pooler_keeps_its_weights_and_keras_warns_of_no_missing_gradients():
    config = keras_bert.BertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2,
                                   intermediate_size=32, max_position_embeddings=16)
    model = freeze_pooler(keras_bert.build_token_classifier(keras_bert.build_encoder(config), 3))
    pooler = [v.path for v in model.non_trainable_weights]
    assert pooler and all("pooler" in path for path in pooler)
    before = [np.array(v) for v in model.non_trainable_weights]
    ids = np.random.default_rng(0).integers(1, 50, (4, 8)).astype("int32")
    inputs = {"input_word_ids": ids, "input_mask": np.ones_like(ids), "input_type_ids": np.zeros_like(ids)}
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Gradients do not exist")
        model.fit(inputs, np.zeros((4, 8), "int32"), epochs=1, batch_size=4, verbose=0)
    for old, variable in zip(before, model.non_trainable_weights):
        np.testing.assert_array_equal(np.array(variable), old)


def test_an_encoder_without_a_pooler_has_none_to_freeze():
    """ModernBERT: its `head` feeds the per-token heads too, so it trains (was "No such layer: pooler" when
    `tools/finetune.py` built a token classifier or span labeler on a ModernBERT)."""
    from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

    config = ModernBertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=16,
                              max_position_embeddings=16)
    model = freeze_pooler(keras_bert.build_token_classifier(ModernBertEncoder(config), 3))
    assert not model.non_trainable_weights
    assert any("head" in v.path for v in model.trainable_weights)


def test_every_task_class_keeps_its_docstring():
    # A class attribute written above the docstring makes it an expression: `__doc__` is None.
    assert all(task.__doc__ for task in (Task, *keras_bert.TASKS.values()))
