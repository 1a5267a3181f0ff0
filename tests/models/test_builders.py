import keras
import numpy as np
import pytest

import keras_bert
from keras_bert import BertConfig
from tests.layers.layer_checks import to_numpy

TINY = BertConfig(vocab_size=60, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32,
                  max_position_embeddings=32)


def encoder_batch(batch=3, seq=8, lengths=(8, 5, 3), seed=0):
    rng = np.random.default_rng(seed)
    mask = np.array([[1] * n + [0] * (seq - n) for n in lengths], "int32")
    ids = rng.integers(5, 60, (batch, seq)).astype("int32") * mask
    types = np.zeros((batch, seq), "int32")
    types[:, seq // 2:] = 1
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types * mask}


@pytest.mark.parametrize("preset, paper_millions, hf_count", [
    ("bert_base_uncased", 110, 109_482_240),    # transformers BertModel, bert-base-uncased
    ("bert_large_uncased", 340, 335_141_888),   # transformers BertModel, bert-large-uncased
])
def test_paper_sizes_have_the_papers_parameter_counts(preset, paper_millions, hf_count):
    encoder = keras_bert.build_encoder(preset)
    assert encoder.count_params() == hf_count
    assert abs(encoder.count_params() / 1e6 - paper_millions) / paper_millions < 0.02


def test_every_preset_builds_with_consistent_shapes():
    for name, config in keras_bert.PRESETS.items():
        if config.num_layers * config.hidden_size > 4 * 256:
            continue  # the big ones are covered above; keep the suite fast
        encoder = keras_bert.build_encoder(name)
        expected = (config.vocab_size + 514) * config.hidden_size + 2 * config.hidden_size  # embeddings
        expected += config.num_layers * (4 * config.hidden_size ** 2 + 2 * config.hidden_size * config.intermediate_size
                                         + 9 * config.hidden_size + config.intermediate_size)
        expected += config.hidden_size ** 2 + config.hidden_size  # pooler
        assert encoder.count_params() == expected, name


def test_encoder_outputs_and_padding_invariance():
    encoder = keras_bert.build_encoder(TINY)
    batch = encoder_batch()
    out = encoder(batch, training=False)
    assert out["sequence_output"].shape == (3, 8, 16)
    assert out["pooled_output"].shape == (3, 16)
    assert len(out["encoder_outputs"]) == 2
    # Appending more padding leaves the real positions unchanged.
    padded = {k: np.pad(v, ((0, 0), (0, 6))) for k, v in batch.items()}
    out_padded = encoder(padded, training=False)
    for row, n in enumerate((8, 5, 3)):
        np.testing.assert_allclose(to_numpy(out_padded["sequence_output"])[row, :n],
                                   to_numpy(out["sequence_output"])[row, :n], atol=1e-5)
    np.testing.assert_allclose(to_numpy(out_padded["pooled_output"]), to_numpy(out["pooled_output"]), atol=1e-5)


def test_too_long_sequence_is_refused_with_both_numbers():
    encoder = keras_bert.build_encoder(TINY)
    batch = {k: np.zeros((1, 40), "int32") for k in ("input_word_ids", "input_mask", "input_type_ids")}
    with pytest.raises(ValueError, match="40 exceeds max_position_embeddings=32"):
        encoder(batch)


def pretraining_batch(seed=0):
    batch = encoder_batch(seed=seed)
    rng = np.random.default_rng(seed)
    positions = np.array([[1, 2, 6, 0], [1, 3, 0, 0], [2, 0, 0, 0]], "int32")
    weights = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], "float32")
    labels = {"masked_lm_ids": rng.integers(5, 60, (3, 4)).astype("int32"),
              "masked_lm_weights": weights,
              "next_sentence_labels": np.array([0, 1, 0], "int32")}
    return dict(batch, masked_lm_positions=positions), labels


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


@pytest.mark.parametrize("builder", ["encoder", "pretrainer", "classifier", "token_classifier", "span_labeler"])
def test_keras_file_round_trip_with_safe_mode(builder, tmp_path):
    build = {
        "encoder": lambda: keras_bert.build_encoder(TINY),
        "pretrainer": lambda: keras_bert.build_pretrainer(TINY),
        "classifier": lambda: keras_bert.build_classifier(TINY, num_classes=3),
        "token_classifier": lambda: keras_bert.build_token_classifier(TINY, num_labels=5),
        "span_labeler": lambda: keras_bert.build_span_labeler(TINY),
    }[builder]
    model = build()
    x, _ = pretraining_batch()
    if builder != "pretrainer":
        x = {k: v for k, v in x.items() if k != "masked_lm_positions"}
    before = model(x, training=False)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)  # no custom_objects
    after = loaded(x, training=False)
    for a, b in zip(keras.tree.flatten(before), keras.tree.flatten(after)):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    if builder == "pretrainer":  # the MLM head is still tied to the loaded encoder's embeddings
        assert loaded.get_layer("mlm_head").embedding_layer is loaded.encoder.embeddings


def test_task_models_output_shapes():
    x = encoder_batch()
    assert keras_bert.build_classifier(TINY, 4)(x).shape == (3, 4)
    assert keras_bert.build_token_classifier(TINY, 5)(x).shape == (3, 8, 5)
    spans = keras_bert.build_span_labeler(TINY)(x)
    assert spans["start_logits"].shape == spans["end_logits"].shape == (3, 8)


def test_builders_reject_wrong_config_types():
    with pytest.raises(TypeError, match="BertConfig, a preset name or a dict"):
        keras_bert.build_encoder(42)


def test_pretrainer_without_nsp_labels_trains_on_mlm_alone():
    model = keras_bert.build_pretrainer(TINY)
    model.compile(optimizer="sgd")
    x, y = pretraining_batch()
    y = {k: v for k, v in y.items() if k != "next_sentence_labels"}
    metrics = model.evaluate(x, y, verbose=0, return_dict=True)
    assert abs(metrics["loss"] - metrics["mlm_loss"]) < 1e-5
