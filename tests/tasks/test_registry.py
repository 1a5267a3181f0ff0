"""TASKS and serving_for: every exported model's serving class comes from its class (or its task's
`serving`); export's task overrides are one mapping that the serving class's options check; capabilities are
class data."""

import pytest

import keras_bert
from keras_bert.tasks import TASKS
from keras_bert.tasks.encoder_serving import EncoderServing
from keras_bert.tasks.masked_lm_serving import MaskedLMServing
from keras_bert.tasks.registry import serving_for

CONFIG = dict(vocab_size=120, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
              max_position_embeddings=64)


@pytest.fixture(scope="module")
def encoder():
    return keras_bert.build_encoder(keras_bert.BertConfig(**CONFIG))


def test_the_model_class_or_its_task_chooses_the_serving_object(encoder):
    assert serving_for(encoder) is EncoderServing
    assert serving_for(keras_bert.build_pretrainer(keras_bert.BertConfig(**CONFIG))) is MaskedLMServing
    assert serving_for(keras_bert.build_classifier(encoder, 2)) is TASKS["classification"].serving
    assert serving_for(keras_bert.build_span_labeler(encoder)) is TASKS["squad"].serving
    with pytest.raises(ValueError, match="does not say what it is"):
        serving_for(encoder.get_layer("pooler"))


def test_the_tasks_name_a_head_that_carries_only_its_problem_type(encoder):
    """Issue 42: a model with no task name (a folder transformers wrote) is the first task in TASKS declaring its
    head's Hugging Face problem_type (`Task.HF_PROBLEM_TYPE`), served as that task; a named task is its own."""
    from keras_bert.models import BertTaskModel, SequenceHead
    from keras_bert.tasks import task_of

    def unnamed(outputs, problem_type=None):
        return BertTaskModel.from_head(encoder, SequenceHead(outputs, problem_type=problem_type))

    models = unnamed(3), unnamed(1), unnamed(3, "multi_label_classification")
    assert [task_of(m) for m in models] == ["classification", "regression", "multi_label"]  # before pair_classification
    assert serving_for(models[2]) is TASKS["multi_label"].serving
    assert task_of(keras_bert.build_classifier(encoder, 2, task="my_plugin_task")) == "my_plugin_task"
    assert task_of(encoder) is None and task_of(keras_bert.build_span_labeler(encoder)) == "squad"


def test_task_overrides_are_one_mapping_checked_by_the_tasks_options(encoder):
    classifier = keras_bert.build_classifier(encoder, 3)
    classification = TASKS["classification"].serving
    assert classification.checked_options(classifier, {"labels": [1, 2, 3]})["labels"] == ["1", "2", "3"]
    with pytest.raises(ValueError) as error:
        TASKS["classification"].serving.checked_options(classifier, {"max_answer_length": 5})
    assert "\n" not in str(error.value)
    assert "--max_answer_length 5" in str(error.value) and "'classification'" in str(error.value)
    with pytest.raises(ValueError, match="labels= has 2 names but the classification model has 3 outputs"):
        TASKS["classification"].serving.checked_options(classifier, {"labels": ["a", "b"]})
    squad = keras_bert.build_span_labeler(encoder)
    assert TASKS["squad"].serving.checked_options(squad, {"doc_stride": 16})["doc_stride"] == 16
    with pytest.raises(ValueError, match=r"doc_stride=0 \(--doc_stride\) must be a positive number"):
        TASKS["squad"].serving.checked_options(squad, {"doc_stride": 0})  # the squad task's options refuse it
    with pytest.raises(ValueError, match=r"Option labels \(--labels \['a'\]\) does not apply to the encoder model"):
        EncoderServing.checked_options(encoder, {"labels": ["a"]})
    assert EncoderServing.checked_options(encoder, None) == {}


def test_capabilities_are_declared_by_the_serving_objects():
    assert EncoderServing.single_text_output == ("embedder", "pooled_output")
    assert TASKS["classification"].serving.single_text_output == ("classifier", "probabilities")
    assert TASKS["pair_classification"].serving.single_text_output is None  # two texts: no MediaPipe classifier
    assert TASKS["squad"].serving.single_text_output is None and TASKS["squad"].serving.pads_text_to_seq_length
    assert not MaskedLMServing.plain_text and not MaskedLMServing.text_pairs  # [MASK] kept whole, one text
    assert all(TASKS[name].serving.tflite_signatures for name in ("classification", "embedding", "regression"))
