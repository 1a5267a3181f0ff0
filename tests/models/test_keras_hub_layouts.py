"""models/keras_hub_layouts.py: RobertaBackbone's position rows and token type, the sizes its weights imply."""

import json
import warnings

import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.checkpoints.keras_hub_checkpoint import weight_sizes
from keras_bert.models.families import FAMILIES
from keras_bert.models.keras_hub_layouts import POSITIONS, ROBERTA_PRESET, TOKEN_TYPES

ROBERTA = keras_bert.BertConfig(vocab_size=40, hidden_size=8, num_layers=1, num_heads=2, intermediate_size=16,
                                max_position_embeddings=10, type_vocab_size=1, layer_norm_eps=1e-5,
                                position_offset=2, family="roberta")


def test_every_family_with_a_keras_hub_backbone_names_a_layout():
    named = {f.name: f.keras_hub.backbone for f in FAMILIES.values() if f.keras_hub}
    assert named == {"bert": "BertBackbone", "roberta": "RobertaBackbone", "xlm_roberta": "XLMRobertaBackbone",
                     "deberta_v3": "DebertaV3Backbone"}


def test_roberta_positions_fold_the_token_type_and_read_back_after_the_offset():
    rng = np.random.default_rng(0)
    weights = {POSITIONS: rng.normal(size=(10, 8)), TOKEN_TYPES: rng.normal(size=(1, 8))}
    layout = ROBERTA_PRESET
    written = layout.from_canonical(weights, ROBERTA, "model")
    assert written[POSITIONS].shape == (8, 8)  # keras-hub's rows: the 8 positions after the offset
    np.testing.assert_allclose(written[POSITIONS], weights[POSITIONS][2:] + weights[TOKEN_TYPES][0])
    read = layout.to_canonical({POSITIONS: written[POSITIONS]}, ROBERTA)
    assert not read[POSITIONS][:2].any() and not read[TOKEN_TYPES].any()
    # Every real token's embedding sum (position + token type 0) is what it was.
    np.testing.assert_allclose(read[POSITIONS][2:] + read[TOKEN_TYPES][0],
                               weights[POSITIONS][2:] + weights[TOKEN_TYPES][0])


def test_roberta_weight_sizes_read_from_keras_hubs_paths():
    shapes = {"layers/token_and_position_embedding/token_embedding/vars/0": (40, 8),
              "layers/token_and_position_embedding/position_embedding/vars/0": (8, 8),
              "layers/transformer_encoder/_feedforward_intermediate_dense/vars/0": (8, 16),
              "layers/transformer_encoder_1/_feedforward_intermediate_dense/vars/0": (8, 16)}
    assert weight_sizes(ROBERTA_PRESET, shapes) == dict(
        vocabulary_size=40, hidden_dim=8, max_sequence_length=8, num_layers=2, intermediate_dim=16)


def test_a_roberta_preset_whose_config_disagrees_with_its_weights_is_one_line(tmp_path):
    pytest.importorskip("keras_hub")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its pooler is not written
        save_checkpoint(keras_bert.BertEncoder(ROBERTA), tmp_path, format="keras_hub")
    config = json.loads((tmp_path / "config.json").read_text())
    config["config"]["hidden_dim"] = 16
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"config.json says hidden_dim=16 but .*model.weights.h5 holds 8"):
        load_checkpoint(tmp_path)
