"""The head classes: each serializes its own config, rebuilds under another dtype policy from it, and
declares its Google / Hugging Face names; task models saved before heads were classes still load."""

import glob
import os

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints import load_checkpoint, load_keras_file
from keras_bert.checkpoints.loading import with_dtype
from keras_bert.models import (HEADS, BertTaskModel, EmbedderHead, MultipleChoiceHead, SequenceHead, SpanHead,
                               TaskHead, TokenHead, builders, upgrade)

from .tiny_bert import TINY, encoder_batch

LEGACY = os.path.join(os.path.dirname(__file__), "legacy_keras")
BUILDS = {
    "classifier": lambda e: builders.build_classifier(e, 3, task_config={"labels": ["a", "b", "c"]}),
    "token_classifier": lambda e: builders.build_token_classifier(e, 2),
    "span_labeler": lambda e: builders.build_span_labeler(e),
    "embedder": lambda e: builders.build_embedder(e, pooling="cls,mean", normalize=False),
    "multiple_choice": lambda e: builders.build_multiple_choice(e, task_config={"seq_length": 8}),
}


def _randomized(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    return model


def _inputs(model):
    batch = encoder_batch()
    if isinstance(model.head, MultipleChoiceHead):  # (batch, choices, seq): the three rows as one question
        return {name: value[np.newaxis] for name, value in batch.items()}
    return batch


@pytest.mark.parametrize("kind", list(BUILDS))
def test_a_head_rebuilds_from_its_own_config_in_a_file_and_in_bf16(kind, tmp_path):
    model = _randomized(BUILDS[kind](builders.build_encoder(TINY)))
    head = model.head
    assert isinstance(head, TaskHead) and type(head) in HEADS
    again = type(head).from_config(head.get_config())
    assert again.get_config() == head.get_config()
    expected = keras.tree.map_structure(np.asarray, model(_inputs(model), training=False))
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert type(loaded) is BertTaskModel and type(loaded.head) is type(head)
    assert (loaded.task, loaded.task_config, loaded.name) == (model.task, model.task_config, model.name)
    keras.tree.map_structure(lambda a, b: np.testing.assert_allclose(a, b, atol=1e-6), expected,
                             loaded(_inputs(model), training=False))
    served = model.with_dtype("mixed_bfloat16")
    assert served.head.get_config() == dict(head.get_config(), dtype=served.head.get_config()["dtype"])
    assert served.encoder.layer_dtype == "mixed_bfloat16"
    keras.tree.map_structure(lambda a, b: np.testing.assert_allclose(a, b, atol=0.1), expected,
                             keras.tree.map_structure(lambda t: np.asarray(keras.ops.cast(t, "float32")),
                                                      served(_inputs(model), training=False)))


def test_heads_declare_distinct_hugging_face_architectures_and_google_names():
    architectures = [head.HF_ARCHITECTURE for head in HEADS if head.HF_ARCHITECTURE]
    assert len(set(architectures)) == len(architectures) == 4
    assert SpanHead.GOOGLE_PREFIX == "cls/squad/" and SpanHead.HF_PREFIX == "qa_outputs"
    assert not TokenHead(2).pooled_only and SequenceHead(2).pooled_only and not MultipleChoiceHead().pooled_only
    assert EmbedderHead().google_variables() == [] and EmbedderHead.HF_ARCHITECTURE is None
    assert SequenceHead.hf_task({"problem_type": "regression"}, "c.json") == ("regression", False)
    assert SequenceHead.hf_task({"id2label": {"0": "x"}}, "c.json") == ("regression", False)  # as transformers
    assert SequenceHead.hf_problem_type("pair_classification") == "single_label_classification"
    with pytest.raises(ValueError, match=r"c.json: problem_type 'ranking' is not one of"):
        SequenceHead.hf_task({"problem_type": "ranking"}, "c.json")
    with pytest.raises(ValueError, match=r"classifier: the number of classes/labels must be a positive integer"):
        SequenceHead(0)


def test_multiple_choice_scores_each_row_like_a_one_unit_classifier():
    """The head is one dense unit on each `[CLS] context [SEP] ending [SEP]` row's pooled output."""
    model = _randomized(builders.build_multiple_choice(builders.build_encoder(TINY)), seed=2)
    batch = encoder_batch()  # 3 rows: one question with 3 endings
    logits = np.asarray(model({k: v[np.newaxis] for k, v in batch.items()}, training=False))
    pooled = model.encoder(batch, training=False)["pooled_output"]
    kernel, bias = model.head.get_weights()
    np.testing.assert_allclose(logits, (np.asarray(pooled) @ kernel + bias).reshape(1, 3), atol=1e-5)
    two = {k: np.stack([v, v[::-1]]) for k, v in batch.items()}  # (2, 3, seq)
    assert model(two, training=False).shape == (2, 3)


@pytest.mark.parametrize("kind", ["classifier", "token_classifier", "span_labeler", "embedder"])
def test_a_task_model_saved_before_heads_were_classes_loads_and_upgrades(kind, tmp_path):
    """Files written by make_legacy.py on the code before this change (commit af42443)."""
    path = os.path.join(LEGACY, f"{kind}.keras")
    saved = dict(np.load(os.path.join(LEGACY, f"{kind}.npz")))
    ids = {name: saved.pop(name) for name in ("input_word_ids", "input_mask", "input_type_ids")}
    old = keras.saving.load_model(path)
    assert old.head is None  # its head is a plain Dense / SentencePooling
    model = load_keras_file(path)
    assert isinstance(model.head, HEADS) and (model.name, model.task, model.task_config) == (
        old.name, old.task, old.task_config)
    for name, value in saved.items():
        outputs = model(ids, training=False)
        np.testing.assert_allclose(outputs[name] if isinstance(outputs, dict) else outputs, value, atol=1e-5)
    loaded = load_checkpoint(path)
    assert type(loaded.head) is type(model.head) and loaded.task == old.task
    np.testing.assert_allclose(keras.tree.flatten(loaded(ids))[0], keras.tree.flatten(model(ids))[0], atol=1e-5)
    assert type(with_dtype(old, "mixed_bfloat16").head) is type(model.head)
    model.save(tmp_path / "again.keras")  # re-saved: the new form
    assert type(keras.saving.load_model(tmp_path / "again.keras").head) is type(model.head)


def test_upgrade_leaves_a_look_alike_built_by_hand_as_it_is():
    encoder = builders.build_encoder(TINY)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    mean = keras.ops.mean(encoder(inputs)["sequence_output"], axis=1)  # not the pooled [CLS]
    look_alike = _randomized(BertTaskModel(inputs, keras.layers.Dense(3, name="classifier")(mean),
                                           task="classification"))
    assert upgrade(look_alike) is look_alike
    assert upgrade(encoder) is encoder


def test_the_legacy_fixtures_are_the_ones_make_legacy_writes():
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(LEGACY, "*.keras"))) == [
        "classifier.keras", "embedder.keras", "span_labeler.keras", "token_classifier.keras"]
    assert keras_bert.models.upgrade is upgrade
