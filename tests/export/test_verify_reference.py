"""The Keras reference the exports are checked against: sample inputs and `model.predict`'s outputs."""

import numpy as np
import tensorflow as tf

from keras_bert.export import ServingModule
from keras_bert.export.verify_reference import SAMPLE_TEXTS, keras_outputs, sample_ids, text_samples, text_to_ids


def test_sample_ids_are_the_texts_trimmed_to_the_longest(tiny_classifier, tokenizer):
    module = ServingModule(tiny_classifier, tokenizer, seq_length=64)
    ids = sample_ids(module.serving)
    assert ids["input_word_ids"].shape[0] == len(SAMPLE_TEXTS)
    assert ids["input_mask"][:, -1].any() and (ids["input_word_ids"][:, 0] == tokenizer.cls_id).all()
    pair = text_to_ids(module.serving, ["a question"], ["an answer"])
    assert pair["input_type_ids"].max() == 1 and pair["input_word_ids"].shape == (1, pair["input_mask"].sum())
    labels = [label for label, _ in text_samples(module.serving)]
    assert labels == ["text_a", "text_a+text_b"]


def test_keras_outputs_are_the_models_logits_and_softmax(tiny_classifier, tokenizer):
    module = ServingModule(tiny_classifier, tokenizer, seq_length=64)
    ids = sample_ids(module.serving)
    outputs = keras_outputs(module.serving, ids)
    logits = tiny_classifier.predict(ids, verbose=0)
    np.testing.assert_allclose(outputs["logits"], logits, atol=1e-5)
    np.testing.assert_allclose(outputs["probabilities"], tf.nn.softmax(logits).numpy(), atol=1e-6)


def test_without_a_tokenizer_sample_ids_are_seeded_random_ids(tiny_classifier):
    module = ServingModule(tiny_classifier)
    a, b = sample_ids(module.serving, seed=1), sample_ids(module.serving, seed=1)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    assert a["input_mask"].sum(axis=1).tolist() == [16, 13, 5, 2]
    assert (a["input_word_ids"] * (1 - a["input_mask"]) == 0).all()  # padding is id 0
