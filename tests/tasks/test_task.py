"""Task's defaults, and the helpers every task shares: collect and check_classes."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.tasks.task import Task, check_classes, collect


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


def test_base_task_settings_and_defaults():
    task = Task(None, "64", 8.0, seed="3")
    assert (task.seq_length, task.batch_size, task.seed) == (64, 8, 3)
    assert task.identity() == {"seq_length": 64, "batch_size": 8}
    assert task.validation_data("eval") == "eval"
    assert set(task.compile_kwargs()) == {"loss", "metrics"}
    with pytest.raises(NotImplementedError):
        task.read("train.csv", training=True)
