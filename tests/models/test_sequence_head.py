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
