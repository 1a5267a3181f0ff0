"""checkpoints/task_fields.py: a mistyped field of a task folder's config.json is one line naming it."""

import pytest

from keras_bert.checkpoints.task_fields import check_task_fields


@pytest.mark.parametrize("raw, fragment", [
    ({"architectures": "BertForSequenceClassification"}, "architectures is 'BertForSequenceClassification'"),
    ({"keras_bert_task": [1]}, "keras_bert_task is [1]; expected an object"),
    ({"keras_bert_task": {"task_config": 3}}, "keras_bert_task is"),
    ({"num_labels": True}, "num_labels is True; expected a whole number >= 1"),
    ({"num_labels": 0}, "num_labels is 0"),
    ({"classifier_dropout": 1.0}, "classifier_dropout is 1.0; expected a number in [0, 1) or null"),
])
def test_a_mistyped_field_is_refused_naming_the_file_and_field(raw, fragment):
    with pytest.raises(ValueError) as error:
        check_task_fields(raw, "task/config.json", "keras_bert_task")
    assert str(error.value).startswith("task/config.json: ") and fragment in str(error.value)
    assert "\n" not in str(error.value)


def test_well_typed_fields_pass():
    check_task_fields({"architectures": ["BertForTokenClassification"], "num_labels": 3, "classifier_dropout": None,
                       "keras_bert_task": {"task": "token_classification", "task_config": {}}},
                      "config.json", "keras_bert_task")
    check_task_fields({}, "config.json", "keras_bert_task")
