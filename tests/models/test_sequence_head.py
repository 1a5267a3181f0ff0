"""models/sequence_head.py: one label per text from the pooled [CLS]; the Hugging Face problem_type it reads."""

import numpy as np
import pytest

from keras_bert.models import SequenceHead


def test_logits_per_text_from_the_pooled_vector():
    head = SequenceHead(3)
    assert head(np.ones((2, 16), "float32")).shape == (2, 3) and head.pooled_only


@pytest.mark.parametrize("hf_config, expected", [
    ({}, ("classification", True)),
    ({"num_labels": 1}, ("regression", False)),
    ({"id2label": {"0": "a", "1": "b", "2": "c"}}, ("classification", True)),
    ({"problem_type": "multi_label_classification"}, ("multi_label", True)),
])
def test_hf_task_decides_as_transformers(hf_config, expected):
    assert SequenceHead.hf_task(hf_config, "config.json") == expected


def test_the_head_lists_no_task_and_the_tasks_declare_their_problem_type():
    """Issue 28's leftover: each task declares its Hugging Face problem_type (`Task.HF_PROBLEM_TYPE`); the
    head carries it (`problem_type`, saved in its config) and `choices.HF_PROBLEM_TYPES` mirrors the tasks."""
    from keras_bert.choices import HF_PROBLEM_TYPES
    from keras_bert.tasks import TASKS

    declared = {name: task.HF_PROBLEM_TYPE for name, task in TASKS.items() if task.HF_PROBLEM_TYPE}
    assert declared == HF_PROBLEM_TYPES and not hasattr(SequenceHead, "HF_TASKS")
    head = SequenceHead(3, problem_type="multi_label_classification")
    assert SequenceHead.from_config(head.get_config()).problem_type_for("my_plugin_task") == "multi_label_classification"
    assert SequenceHead(3).problem_type_for("regression") == "regression" and not SequenceHead(3).carries("my_task")
    with pytest.raises(ValueError, match=r"classifier: problem_type must be one of \['multi_label_classification', "):
        SequenceHead(2, problem_type="ranking")
