"""tasks/serving.py: the base serving object takes no option, and serves a model with its own task_config."""

import pytest

from keras_bert.tasks.serving import Serving


class _Model:
    task_config = {"labels": ["a", "b"], "seq_length": 8}


def test_the_base_refuses_any_option_in_one_line_naming_it():
    Serving.check_options({})
    with pytest.raises(ValueError, match=r"^Option labels \(--labels \['x'\]\) does not apply to the  model"):
        Serving.check_options({"labels": ["x"]})


def test_serving_config_is_the_models_task_config_and_the_hooks_default_to_plain():
    assert Serving.serving_config(_Model()) == {"labels": ["a", "b"], "seq_length": 8}
    assert Serving.serving_config(object()) == {}
    assert Serving.options() == {} and Serving.text_signatures(None, {}) == {}
    outputs = {"logits": 1}
    assert Serving.serving_outputs(outputs, {}) is outputs and Serving.sample_ids(None, outputs) is outputs
