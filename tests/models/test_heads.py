"""models/heads.py: HEADS, and task models saved before heads were classes load and upgrade."""

import glob
import os

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints import load_checkpoint, load_keras_file
from keras_bert.checkpoints.loading import with_dtype
from keras_bert.models import HEADS, BertTaskModel, builders, upgrade

from .tiny_bert import TINY, randomized

LEGACY = os.path.join(os.path.dirname(__file__), "legacy_keras")


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
        outputs = keras.tree.map_structure(keras.ops.convert_to_numpy, model(ids, training=False))
        np.testing.assert_allclose(outputs[name] if isinstance(outputs, dict) else outputs, value, atol=1e-5)
    loaded = load_checkpoint(path)
    assert type(loaded.head) is type(model.head) and loaded.task == old.task
    np.testing.assert_allclose(keras.ops.convert_to_numpy(keras.tree.flatten(loaded(ids))[0]), keras.ops.convert_to_numpy(keras.tree.flatten(model(ids))[0]),
                               atol=1e-5)
    assert type(with_dtype(old, "mixed_bfloat16").head) is type(model.head)
    model.save(tmp_path / "again.keras")  # re-saved: the new form
    assert type(keras.saving.load_model(tmp_path / "again.keras").head) is type(model.head)


def test_upgrade_leaves_a_look_alike_built_by_hand_as_it_is():
    encoder = builders.build_encoder(TINY)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    mean = keras.ops.mean(encoder(inputs)["sequence_output"], axis=1)  # not the pooled [CLS]
    look_alike = randomized(BertTaskModel(inputs, keras.layers.Dense(3, name="classifier")(mean),
                                           task="classification"))
    assert upgrade(look_alike) is look_alike
    assert upgrade(encoder) is encoder


def test_the_legacy_fixtures_are_the_ones_make_legacy_writes():
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(LEGACY, "*.keras"))) == [
        "classifier.keras", "embedder.keras", "span_labeler.keras", "token_classifier.keras"]
    assert keras_bert.models.upgrade is upgrade


def test_hf_head_finds_the_head_class_of_an_architectures_list():
    from keras_bert.models.heads import hf_head

    assert hf_head(["BertModel", "BertForQuestionAnswering"]).__name__ == "SpanHead"
    assert hf_head(["BertForMultipleChoice"]).__name__ == "MultipleChoiceHead"
    assert hf_head(["BertModel"]) is None and hf_head(None) is None
