"""models/sequence_head.py: one label per text from the pooled [CLS]; the Hugging Face problem_type it reads."""

import numpy as np
import pytest

from keras_bert.models import SequenceHead


def test_logits_per_text_from_the_pooled_vector():
    head = SequenceHead(3)
    assert head(np.ones((2, 16), "float32")).shape == (2, 3) and head.pooled_only


@pytest.mark.parametrize("hf_config, expected", [
    ({}, ("single_label_classification", True)),
    ({"num_labels": 1}, ("regression", False)),
    ({"id2label": {"0": "a", "1": "b", "2": "c"}}, ("single_label_classification", True)),
    ({"problem_type": "multi_label_classification"}, ("multi_label_classification", True)),
])
def test_a_folder_transformers_wrote_gives_the_problem_type_transformers_reads(hf_config, expected):
    """The head reads Hugging Face's vocabulary (problem_type, as transformers decides it) and names no task."""
    problem_type, labeled = expected
    assert SequenceHead.hf_task(hf_config, "config.json") == (None, labeled)
    assert SequenceHead.hf_options(hf_config) == {"problem_type": problem_type}


def test_the_head_always_carries_a_problem_type_and_no_task_table_is_left():
    """Issue 42: the head carries Hugging Face's problem_type (declared, else transformers' reading; saved in its
    config) and nothing below tasks/ maps it to a task name (tests/tasks/test_registry.py: `task_of` does)."""
    import keras_bert.choices
    from keras_bert.models.sequence_head import PROBLEM_TYPES
    from keras_bert.tasks import TASKS

    assert {task.HF_PROBLEM_TYPE for task in TASKS.values() if task.HF_PROBLEM_TYPE} == set(PROBLEM_TYPES)
    assert not hasattr(keras_bert.choices, "HF_PROBLEM_TYPES")
    head = SequenceHead(3, problem_type="multi_label_classification")
    assert SequenceHead.from_config(head.get_config()).problem_type == "multi_label_classification"
    assert (SequenceHead(1).problem_type, SequenceHead(2).problem_type) == ("regression", "single_label_classification")
    with pytest.raises(ValueError, match=r"classifier: problem_type must be one of \['multi_label_classification', "):
        SequenceHead(2, problem_type="ranking")
    with pytest.raises(ValueError, match=r"c.json: problem_type 'ranking' is not one of"):
        SequenceHead.hf_task({"problem_type": "ranking"}, "c.json")
