"""BertPretrainer: the MLM + NSP loss and metrics by hand, memorising a batch, MLM alone."""

import keras
import numpy as np
import pytest

import keras_bert
from tests.models.tiny_bert import TINY, pretraining_batch
from tests.layers.layer_checks import to_numpy


def test_pretraining_loss_is_mean_over_real_masked_positions_plus_mean_nsp():
    model = keras_bert.build_pretrainer(TINY)
    model.compile(optimizer="sgd")
    x, y = pretraining_batch()
    out = model(x, training=False)
    mlm = to_numpy(out["mlm_logits"]).astype("float64")
    nsp = to_numpy(out["nsp_logits"]).astype("float64")

    def log_softmax(z):
        z = z - z.max(-1, keepdims=True)
        return z - np.log(np.exp(z).sum(-1, keepdims=True))

    mlm_ce = -np.take_along_axis(log_softmax(mlm), y["masked_lm_ids"][..., None], -1)[..., 0]
    nsp_ce = -np.take_along_axis(log_softmax(nsp), y["next_sentence_labels"][:, None], -1)[:, 0]
    w = y["masked_lm_weights"]
    expected = (mlm_ce * w).sum() / w.sum() + nsp_ce.mean()
    loss = float(model.compute_loss(x, y, out))
    assert abs(loss - expected) < 1e-4
    # Changing what sits in padded prediction slots changes nothing.
    y2 = dict(y, masked_lm_ids=np.where(w > 0, y["masked_lm_ids"], 7).astype("int32"))
    assert abs(float(model.compute_loss(x, y2, out)) - loss) < 1e-6
    metrics = model.evaluate(x, y, verbose=0, return_dict=True)
    assert abs(metrics["loss"] - expected) < 1e-4
    assert abs(metrics["mlm_loss"] + metrics["nsp_loss"] - expected) < 1e-4
    # Accuracy over real slots only: make 2 of the 6 real slots and every padded one right.
    ids = y["masked_lm_ids"].copy()
    ids[0, :2], ids[w == 0] = mlm.argmax(-1)[0, :2], mlm.argmax(-1)[w == 0]
    metrics = model.evaluate(x, dict(y, masked_lm_ids=ids), verbose=0, return_dict=True)
    correct = (mlm.argmax(-1) == ids).astype("float64")
    assert abs(metrics["mlm_accuracy"] - (correct * w).sum() / w.sum()) < 1e-6
    assert 2 / 6 <= metrics["mlm_accuracy"] < 1
    assert abs(metrics["nsp_accuracy"] - (nsp.argmax(-1) == y["next_sentence_labels"]).mean()) < 1e-6


def test_pretrainer_fits_and_memorises_a_batch():
    model = keras_bert.build_pretrainer(TINY.replace(dropout_rate=0.0, attention_dropout_rate=0.0))
    model.compile(optimizer=keras.optimizers.Adam(1e-2))
    x, y = pretraining_batch()
    history = model.fit(x, y, epochs=30, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    assert history.history["mlm_accuracy"][-1] == 1.0


def test_pretrainer_without_nsp_labels_trains_on_mlm_alone():
    model = keras_bert.build_pretrainer(TINY)
    model.compile(optimizer="sgd")
    x, y = pretraining_batch()
    y = {k: v for k, v in y.items() if k != "next_sentence_labels"}
    metrics = model.evaluate(x, y, verbose=0, return_dict=True)
    assert abs(metrics["loss"] - metrics["mlm_loss"]) < 1e-5


def _pretrainer_and_its_full_graph():
    """A dropout-free pretrainer, a batch, and the whole encoder followed by the same heads."""
    model = keras_bert.build_pretrainer(TINY.replace(dropout_rate=0.0, attention_dropout_rate=0.0))
    x, y = pretraining_batch()
    ids = {k: x[k] for k in ("input_word_ids", "input_mask", "input_type_ids")}

    def full_graph():
        out = model.encoder(ids, training=True)
        return {"mlm_logits": model.get_layer("mlm_head")(out["sequence_output"], x["masked_lm_positions"]),
                "nsp_logits": model.get_layer("nsp_head")(out["pooled_output"])}

    return model, x, y, full_graph


def test_last_layer_computed_for_the_read_rows_only_keeps_the_outputs():
    """The pretrainer's call runs the last layer for [CLS] + the masked positions only: the same
    logits and loss as the whole encoder followed by the heads (every backend)."""
    model, x, y, full_graph = _pretrainer_and_its_full_graph()
    fast, full = model(x, training=True), full_graph()
    for name in ("mlm_logits", "nsp_logits"):
        np.testing.assert_allclose(to_numpy(fast[name]), to_numpy(full[name]), atol=1e-5)
    assert abs(float(model.compute_loss(x, y, fast)) - float(model.compute_loss(x, y, full))) < 1e-6


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="gradients taken with tf.GradientTape")
def test_last_layer_computed_for_the_read_rows_only_keeps_the_gradients():
    import tensorflow as tf

    model, x, y, full_graph = _pretrainer_and_its_full_graph()
    gradients = []
    for forward in (lambda: model(x, training=True), full_graph):
        with tf.GradientTape() as tape:
            loss = model.compute_loss(x, y, forward())
        gradients.append([to_numpy(g) for g in tape.gradient(loss, model.trainable_variables)])
    for variable, fast, full in zip(model.trainable_variables, *gradients):
        np.testing.assert_allclose(fast, full, atol=1e-6, err_msg=variable.path)


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="the XLA path is TensorFlow's")
def test_vocab_cross_entropy_under_xla_equals_keras_loss_and_gradient():
    import tensorflow as tf

    from keras_bert.models.bert_pretrainer import vocab_cross_entropy

    rng = np.random.default_rng(0)
    logits = tf.constant(rng.normal(0, 4, (3, 20, 500)), tf.float32)
    labels = tf.constant(rng.integers(0, 500, (3, 20)), tf.float32)  # as the Loss object passes them

    def loss_and_gradient(loss_fn):
        with tf.GradientTape() as tape:
            tape.watch(logits)
            per_slot = loss_fn(labels, logits)
            weighted = tf.reduce_sum(per_slot * tf.range(20.0))
        return per_slot, tape.gradient(weighted, logits)

    reference = loss_and_gradient(lambda t, p: keras.losses.sparse_categorical_crossentropy(t, p, from_logits=True))
    xla = tf.function(lambda: loss_and_gradient(vocab_cross_entropy), jit_compile=True)()
    np.testing.assert_allclose(xla[0], reference[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(xla[1], reference[1], rtol=1e-5, atol=1e-6)


def test_a_modernbert_pretrainer_is_masked_lm_only_with_its_family_head_and_trains():
    """ModernBERT's pretrainer: its masked LM reads the encoder's prediction head and tied embeddings (its only
    own weight: the decoder bias), no next-sentence head; `fit` lowers the loss; the config round-trips."""
    from keras_bert.models.modernbert import ModernBertConfig

    config = ModernBertConfig(vocab_size=50, hidden_size=16, num_layers=3, num_heads=2, intermediate_size=24,
                              local_attention=4, pad_token_id=0)
    model = keras_bert.models.BertPretrainer(config)
    assert not model.next_sentence and len(model.weights) == len(model.encoder.weights) + 1  # + decoder bias
    rng = np.random.default_rng(0)
    x = {"input_word_ids": rng.integers(1, 50, (4, 12)).astype("int32"), "input_mask": np.ones((4, 12), "int32"),
         "input_type_ids": np.zeros((4, 12), "int32"), "masked_lm_positions": rng.integers(0, 12, (4, 3)).astype("int32")}
    y = {"masked_lm_ids": rng.integers(1, 50, (4, 3)).astype("int32"), "masked_lm_weights": np.ones((4, 3), "float32")}
    model.compile(optimizer=keras.optimizers.Adam(1e-2), run_eagerly=True)  # a graph's tracing: ~8 s
    history = model.fit(x, y, epochs=3, verbose=0).history
    assert history["loss"][-1] < history["loss"][0] and "nsp_loss" not in history
    assert keras_bert.models.BertPretrainer.from_config(model.get_config()).config == config
