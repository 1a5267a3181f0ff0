"""ServingModule: task detection, input checks and the in-graph [MASK]-aware tokenization."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export import ServingModule
from keras_bert.export.serving_module import model_task
from keras_bert.export.verify_reference import sample_ids
from tests.export.helpers import randomize


def test_the_model_says_what_it_serves(tiny_config):
    assert model_task(keras_bert.build_encoder(tiny_config)) == "encoder"
    assert model_task(keras_bert.build_classifier(tiny_config, 2)) == "classification"
    assert model_task(keras_bert.build_token_classifier(tiny_config, 5)) == "token_classification"
    assert model_task(keras_bert.build_span_labeler(tiny_config)) == "squad"
    assert model_task(keras_bert.build_pretrainer(tiny_config)) == "pretrainer"


def test_a_model_that_does_not_say_what_it_is_is_refused(tiny_config):
    encoder = keras_bert.build_encoder(tiny_config)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    bare = keras.Model(inputs, keras.layers.Dense(1)(encoder(inputs)["pooled_output"]))
    with pytest.raises(ValueError, match="does not say what it is"):
        ServingModule(bare)


def test_unbuilt_model_is_refused():
    class Unbuilt(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, inputs):
            return self.dense(inputs["input_word_ids"])

    with pytest.raises(ValueError, match="not built"):
        ServingModule(Unbuilt())
    with pytest.raises(TypeError, match="keras.Model"):
        ServingModule(lambda x: x)


def test_model_without_id_inputs_is_refused():
    inputs = keras.Input((4,))
    with pytest.raises(ValueError, match="input_word_ids"):
        ServingModule(keras.Model(inputs, keras.layers.Dense(2)(inputs)))


def test_vocab_mismatch_names_both_sizes(tokenizer):
    config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size + 7, hidden_size=16, num_layers=1,
                                   num_heads=2, intermediate_size=32)
    with pytest.raises(ValueError, match=rf"{tokenizer.vocab_size} tokens.*{tokenizer.vocab_size + 7} rows"):
        ServingModule(keras_bert.build_classifier(config, 2), tokenizer)


def test_seq_length_beyond_positions_is_refused(tokenizer):
    config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1,
                                   num_heads=2, intermediate_size=32, max_position_embeddings=64)
    with pytest.raises(ValueError, match="max_position_embeddings=64"):
        ServingModule(keras_bert.build_encoder(config), tokenizer, seq_length=128)


def test_pretrainer_needs_mask_id(tiny_config):
    with pytest.raises(ValueError, match=r"\[MASK\]"):
        ServingModule(keras_bert.build_pretrainer(tiny_config))


def test_fill_mask_outputs_in_graph_match_keras(tiny_config, tokenizer):
    module = ServingModule(randomize(keras_bert.build_pretrainer(tiny_config), seed=3), tokenizer, top_k=3)
    ids = sample_ids(module.serving)
    graph = module.serve_ids(**{"inputs": {k: tf.constant(v) for k, v in ids.items()}})
    positions = graph["masked_lm_positions"].numpy()
    # Each [MASK] position, in order, then -1 padding; top-k ids sorted by probability.
    for row in range(positions.shape[0]):
        expected = np.nonzero((ids["input_word_ids"][row] == tokenizer.mask_id) & (ids["input_mask"][row] == 1))[0]
        assert list(positions[row][:len(expected)]) == list(expected)
        assert np.all(positions[row][len(expected):] == -1)
        assert np.all(graph["top_k_ids"].numpy()[row][len(expected):] == -1)
    probabilities = graph["top_k_probabilities"].numpy()
    assert np.all(np.diff(probabilities, axis=-1) <= 0)
    tokens = graph["top_k_tokens"].numpy()
    assert tokens[0, 0, 0].decode() == tokenizer.vocab[graph["top_k_ids"].numpy()[0, 0, 0]]


def test_text_requests_pad_to_their_longest_text_with_the_same_logits(tiny_config, tiny_classifier, tokenizer):
    # 9 rows: they run in LENGTH_GROUPS groups of similar length (fewer rows: one batch, every export test)
    count = 9
    texts = tf.constant((["a short one", "a somewhat longer text with more words in it", "", "two words"] * 3)[:count])
    encoder_model = randomize(keras_bert.build_encoder(tiny_config), seed=2)
    encoder = ServingModule(encoder_model, tokenizer, seq_length=64)
    pieces = tokenizer.tokenize(texts).row_lengths().numpy()
    sequence = encoder.serve_text(texts, tf.constant([], tf.string))["sequence_output"]
    assert sequence.shape == (count, pieces.max() + 2, 32)  # [CLS] A [SEP]
    padded = keras_bert.Preprocessor(tokenizer, 64)(texts)  # padded to seq_length, as before
    assert padded["input_word_ids"].shape == (count, 64)
    mask = padded["input_mask"].numpy()[:, :sequence.shape[1], None]
    want = encoder_model(padded, training=False)["sequence_output"].numpy()[:, :sequence.shape[1]]
    np.testing.assert_allclose(sequence * mask, want * mask, atol=1e-5)  # equal at every real position
    pairs = encoder.serve_text(texts[:2], texts[1:3])["sequence_output"]  # [CLS] A [SEP] B [SEP]
    assert pairs.shape[1] == max(pieces[0] + pieces[1], pieces[1] + pieces[2]) + 3
    logits = ServingModule(tiny_classifier, tokenizer, seq_length=64).serve_text(texts, tf.constant([], tf.string))
    np.testing.assert_allclose(logits["logits"], tiny_classifier(padded, training=False), atol=1e-5)


def test_a_pooled_head_is_served_with_the_last_layer_for_cls_only(tiny_config, tokenizer):
    """A builder's classifier serves through BertEncoder.pooled_output_only, with the model's logits;
    a task model whose Dense named "classifier" reads something else keeps the whole forward."""
    from keras_bert.export.pooled_head import pooled_head_call as _pooled_head_call
    from keras_bert.models import BertTaskModel

    classifier = randomize(keras_bert.build_classifier(tiny_config, 3), seed=3)
    module = ServingModule(classifier, tokenizer, seq_length=32)
    assert module.serving.call_model.call_model is not module.serving.call_model.call_keras_model
    ids = {k: tf.constant(v) for k, v in sample_ids(module.serving).items()}
    np.testing.assert_allclose(module.serve_ids(ids)["logits"], classifier(ids, training=False), atol=1e-5)
    encoder = randomize(keras_bert.build_encoder(tiny_config), seed=4)
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    mean = keras.ops.mean(encoder(inputs)["sequence_output"], axis=1)  # not the pooled [CLS]
    look_alike = BertTaskModel(inputs, keras.layers.Dense(3, name="classifier")(mean), task="classification",
                               task_config={"labels": ["a", "b", "c"]})
    assert _pooled_head_call(look_alike) is None
    assert _pooled_head_call(keras_bert.build_token_classifier(tiny_config, 5)) is None


def test_every_serving_function_traces_without_autograph():
    """AutoGraph converted ~220 functions (Keras's own too) on each export for nothing: a tiny SQuAD
    model's SavedModel export took 37 s with it, 20 s without. Serving code uses tf ops for control
    flow, so every `tf.function` in export/ and tasks/ passes `autograph=False`."""
    import ast
    import pathlib

    package = pathlib.Path(keras_bert.__file__).parent
    missing = []
    for path in sorted([*package.glob("export/*.py"), *package.glob("tasks/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "function"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "tf"
                    and not any(k.arg == "autograph" for k in node.keywords)):
                missing.append(f"{path.relative_to(package)}:{node.lineno}")
    assert not missing, missing
