"""tasks/serving.py: the serving object is built once from the model and owns its state; the base takes no
option, serves a model with its own task_config and defaults to the plain hooks."""

import numpy as np
import pytest

import keras_bert
from keras_bert.export.model_call import ModelCall
from keras_bert.tasks.serving import Serving
from tests.models.tiny_bert import TINY, encoder_batch


class _Model:
    task_config = {"labels": ["a", "b"], "seq_length": 8}


def test_the_base_refuses_any_option_in_one_line_naming_it():
    Serving.check_options({})
    with pytest.raises(ValueError, match=r"^Option labels \(--labels \['x'\]\) does not apply to the  model"):
        Serving.check_options({"labels": ["x"]})


def test_the_object_owns_its_state_and_the_hooks_default_to_plain():
    assert Serving.checked_options(_Model()) == {"labels": ["a", "b"], "seq_length": 8}
    assert Serving.checked_options(object()) == {}
    classifier = keras_bert.build_classifier(keras_bert.build_encoder(TINY), 2)
    serving = Serving(classifier, None, ModelCall(classifier, TINY, runtime_checks=False), seq_length=8, top_k=3)
    assert (serving.seq_length, serving.top_k, serving.labels, serving.preprocessor) == (8, 3, None, None)
    assert serving.runtime_checks is False and serving.resources() == {} and serving.text_signatures() == {}
    batch = encoder_batch()
    logits = classifier(batch, training=False)
    np.testing.assert_allclose(serving.outputs_from_ids(batch), logits, atol=1e-5)  # the model's own outputs
    assert serving.sample_ids(batch) is batch
