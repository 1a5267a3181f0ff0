"""Task options with the wrong type, in a model's task_config or on the command line (issue 30 §2).

One rule (keras_bert/tasks/options.py): a value is taken when its declared type reads it exactly
("0.3" as 0.3, "8" as 8); anything else is refused in one line naming the option, the value and
the type, when the model is loaded for export or evaluation, not as a raw TypeError later.
Before: a multi-label model carrying threshold "0.3" broke export with `TypeError: '<' not supported
between instances of 'int' and 'str'`; labels "neg,pos" were read as 7 one-letter names;
`finetune.py --text_a on` read the column name "on" as True.
"""

import os

import numpy as np
import pytest

from tests.conftest import run_tool
from tests.reliability.conftest import FIXTURES, assert_api_error, assert_one_line_error

SEQ = 16


@pytest.fixture(scope="module")
def encoder(tiny_checkpoint):
    import keras_bert

    return keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")


def _model(encoder, task, outputs, **task_config):
    from keras_bert.models.builders import build_classifier

    return build_classifier(encoder, outputs, name=f"bert_{task}", task=task,
                            task_config=dict(seq_length=SEQ, **task_config))


def _serving(model):
    from keras_bert.export import ServingModule

    return ServingModule(model, model.text_config.tokenizer(), SEQ)


def test_a_threshold_stored_as_the_string_0_3_serves_with_0_3(encoder):
    import tensorflow as tf

    model = _model(encoder, "multi_label", 3, labels=["a", "b", "c"], threshold="0.3")
    out = _serving(model).task_signatures()["classify_multi_label"](text_a=tf.constant(["to be", "or not"]))
    np.testing.assert_array_equal(out["predicted"].numpy(), out["probabilities"].numpy() >= 0.3)


@pytest.mark.parametrize("task, outputs, task_config, fragments", [
    ("multi_label", 2, dict(labels=["a", "b"], threshold="high"), ["bert_multi_label", "threshold=nan", "'high'"]),
    ("multi_label", 2, dict(labels=["a", "b"], threshold=1.5), ["threshold=1.5", "between 0 and 1"]),
    ("classification", 2, dict(labels="neg,pos"), ["labels='neg,pos'", "must be a list"]),
    ("classification", 2, dict(labels=["neg", "pos"], doc_stride="8.5"), ["doc_stride='8.5'", "whole number"]),
    ("regression", 1, dict(text_b=3), ["text_b=3", "must be a string"]),
])
def test_a_task_config_value_of_the_wrong_type_is_refused_at_export_and_evaluation(
        encoder, task, outputs, task_config, fragments):
    from keras_bert.tasks import TASKS

    model = _model(encoder, task, outputs, **task_config)
    assert_api_error(lambda: _serving(model), ValueError, *fragments)  # export
    assert_api_error(lambda: TASKS[task].from_model(model), ValueError, *fragments)  # evaluation


def test_export_tool_refuses_a_saved_model_with_a_string_option_in_one_line(encoder, tmp_path):
    path = str(tmp_path / "model.keras")
    _model(encoder, "multi_label", 2, labels=["a", "b"], threshold="high").save(path)
    result = run_tool("export", path, "--formats", "savedmodel", "--base_dir", str(tmp_path / "out"), timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "threshold=nan", "'high'", "--threshold")


def test_finetune_keeps_a_column_named_on_as_a_name(tiny_checkpoint, tmp_path):
    result = run_tool("finetune", "classification", "--checkpoint", tiny_checkpoint,
                      "--train_file", os.path.join(FIXTURES, "sentiment.csv"), "--text_a", "on",
                      "--output_dir", str(tmp_path / "run"), "--epochs", "1", "--batch_size", "4",
                      "--seq_length", str(SEQ), timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "'on'", "--text_a")
