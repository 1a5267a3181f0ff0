"""models/task_head.py and its head classes: each serializes its own config, rebuilds under another dtype
policy from it, and declares its Google / Hugging Face names."""

import keras
import numpy as np
import pytest

from keras_bert.models import (HEADS, BertTaskModel, EmbedderHead, MultipleChoiceHead, SequenceHead, SpanHead,
                               TaskHead, TokenHead, builders)

from .tiny_bert import TINY, encoder_batch, randomized

BUILDS = {
    "classifier": lambda e: builders.build_classifier(e, 3, task_config={"labels": ["a", "b", "c"]}),
    "token_classifier": lambda e: builders.build_token_classifier(e, 2),
    "span_labeler": lambda e: builders.build_span_labeler(e),
    "embedder": lambda e: builders.build_embedder(e, pooling="cls,mean", normalize=False),
    "multiple_choice": lambda e: builders.build_multiple_choice(e, task_config={"seq_length": 8}),
}


def _inputs(model):
    batch = encoder_batch()
    if isinstance(model.head, MultipleChoiceHead):  # (batch, choices, seq): the three rows as one question
        return {name: value[np.newaxis] for name, value in batch.items()}
    return batch


@pytest.mark.parametrize("kind", list(BUILDS))
def test_a_head_rebuilds_from_its_own_config_in_a_file_and_in_bf16(kind, tmp_path):
    model = randomized(BUILDS[kind](builders.build_encoder(TINY)))
    head = model.head
    assert isinstance(head, TaskHead) and type(head) in HEADS
    again = type(head).from_config(head.get_config())
    assert again.get_config() == head.get_config()
    expected = keras.tree.map_structure(keras.ops.convert_to_numpy, model(_inputs(model), training=False))
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert type(loaded) is BertTaskModel and type(loaded.head) is type(head)
    assert (loaded.task, loaded.task_config, loaded.name) == (model.task, model.task_config, model.name)
    keras.tree.map_structure(lambda a, b: np.testing.assert_allclose(a, b, atol=1e-6), expected,
                             keras.tree.map_structure(keras.ops.convert_to_numpy, loaded(_inputs(model), training=False)))
    served = model.with_dtype("mixed_bfloat16")
    assert served.head.get_config() == dict(head.get_config(), dtype=served.head.get_config()["dtype"])
    assert served.encoder.layer_dtype == "mixed_bfloat16"
    keras.tree.map_structure(lambda a, b: np.testing.assert_allclose(a, b, atol=0.1), expected,
                             keras.tree.map_structure(lambda t: keras.ops.convert_to_numpy(keras.ops.cast(t, "float32")),
                                                      served(_inputs(model), training=False)))


def test_heads_declare_distinct_hugging_face_architectures_and_google_names():
    architectures = [head.HF_ARCHITECTURE for head in HEADS if head.HF_ARCHITECTURE]
    assert len(set(architectures)) == len(architectures) == 4
    assert SpanHead.GOOGLE_PREFIX == "cls/squad/" and SpanHead.HF_PREFIX == "qa_outputs"
    assert not TokenHead(2).pooled_only and SequenceHead(2).pooled_only and not MultipleChoiceHead().pooled_only
    assert EmbedderHead().google_variables() == [] and EmbedderHead.HF_ARCHITECTURE is None
    assert SequenceHead.hf_task({"problem_type": "regression"}, "c.json") == (None, False)
    assert SequenceHead.hf_options({"id2label": {"0": "x"}}) == {"problem_type": "regression"}  # as transformers
    with pytest.raises(ValueError, match=r"classifier: the number of classes/labels must be a positive integer"):
        SequenceHead(0)
