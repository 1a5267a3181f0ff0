import keras
import numpy as np
import pytest

import keras_bert
from tests.models.tiny_bert import TINY, encoder_batch, pretraining_batch
from tests.layers.layer_checks import to_numpy


def encoder_parameters(config):
    """An encoder's parameter count from its sizes: embeddings (word, 512 positions, 2 segments, the
    LayerNorm), per layer 4 attention projections, the two FFN matrices and their biases and norms,
    the pooler."""
    count = (config.vocab_size + 514) * config.hidden_size + 2 * config.hidden_size
    count += config.num_layers * (4 * config.hidden_size ** 2 + 2 * config.hidden_size * config.intermediate_size
                                  + 9 * config.hidden_size + config.intermediate_size)
    return count + config.hidden_size ** 2 + config.hidden_size


def test_paper_sizes_have_the_papers_parameter_counts():
    """BERT-base is built and counted; BERT-large's preset is counted by the formula that every built preset
    meets (building its 335M weights took 20-40 s on 2 cores for no path BERT-base does not take)."""
    encoder = keras_bert.build_encoder("bert_base_uncased")
    assert encoder.count_params() == encoder_parameters(keras_bert.PRESETS["bert_base_uncased"]) == 109_482_240
    assert encoder_parameters(keras_bert.PRESETS["bert_large_uncased"]) == 335_141_888  # transformers BertModel
    for count, paper_millions in ((109_482_240, 110), (335_141_888, 340)):
        assert abs(count / 1e6 - paper_millions) / paper_millions < 0.02


def test_every_preset_builds_with_consistent_shapes():
    for name, config in keras_bert.PRESETS.items():
        if config.num_layers * config.hidden_size > 4 * 256:
            continue  # the big ones are covered above; keep the suite fast
        encoder = keras_bert.build_encoder(name)
        assert encoder.count_params() == encoder_parameters(config), name


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
