"""Serving inputs out of range are refused in the graph (SavedModel), with a message naming the input;
serving options the `answer` signature cannot use are refused when the options are made (export time)."""

import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export import ServingModule
from keras_bert.tasks.answer_signature import SquadOptions
from tests.export.helpers import randomize


@pytest.fixture(scope="module")
def serve_ids(tokenizer, tmp_path_factory):
    config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1,
                                   num_heads=2, intermediate_size=32, max_position_embeddings=64)
    model = randomize(keras_bert.build_classifier(config, num_classes=2), seed=3)
    module = ServingModule(model, tokenizer, seq_length=16)
    path = str(tmp_path_factory.mktemp("serving_inputs") / "model")
    tf.saved_model.save(module, path, signatures=module.signatures())
    return tf.saved_model.load(path).signatures["serve_ids"], tokenizer.vocab_size


def _inputs(batch=2, seq=6, **changes):
    inputs = {"input_word_ids": np.full((batch, seq), 101, np.int32),
              "input_mask": np.ones((batch, seq), np.int32),
              "input_type_ids": np.zeros((batch, seq), np.int32)}
    for name, (row, col, value) in changes.items():
        inputs[name][row, col] = value
    return {name: tf.constant(value) for name, value in inputs.items()}


def test_valid_inputs_are_served(serve_ids):
    signature, _ = serve_ids
    assert signature(**_inputs())["logits"].shape == (2, 2)


@pytest.mark.parametrize("name, value, allowed", [
    ("input_word_ids", -5, r"input_word_ids values must be in \[0, vocab_size="),
    ("input_word_ids", "vocab", r"input_word_ids values must be in \[0, vocab_size="),
    ("input_type_ids", -1, r"input_type_ids values must be in \[0, type_vocab_size=2\)"),
    ("input_type_ids", 2, r"input_type_ids values must be in \[0, type_vocab_size=2\)"),
    ("input_mask", 2, r"input_mask values must be in \{0, 1\}"),
    ("input_mask", -1, r"input_mask values must be in \{0, 1\}"),
])
def test_out_of_range_inputs_name_the_input(serve_ids, name, value, allowed):
    signature, vocab_size = serve_ids
    value = vocab_size if value == "vocab" else value
    with pytest.raises(tf.errors.InvalidArgumentError, match=allowed):
        signature(**_inputs(**{name: (1, 3, value)}))


def test_paired_inputs_of_different_batch_sizes_are_refused(serve_ids):
    signature, _ = serve_ids
    inputs = _inputs()
    inputs["input_mask"] = tf.ones((3, 6), tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input_mask must have the shape of input_word_ids"):
        signature(**inputs)


@pytest.mark.parametrize("name, value", [
    ("doc_stride", 0), ("doc_stride", -5), ("max_query_length", 0), ("max_answer_length", -1),
    ("n_best_size", 0), ("doc_stride", 2.5),
])
def test_squad_options_are_checked_when_made(name, value):
    with pytest.raises(ValueError, match=f"^--{name} must be a whole number >= 1 \\(got {value}\\)") as error:
        SquadOptions(**{name: value})
    assert "\n" not in str(error.value)


def test_squad_threshold_must_be_finite():
    with pytest.raises(ValueError, match="--null_score_diff_threshold must be a finite number"):
        SquadOptions(null_score_diff_threshold=float("nan"))
    assert SquadOptions(doc_stride=1, null_score_diff_threshold=-2.0).doc_stride == 1
