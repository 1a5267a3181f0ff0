"""weight_map: Google TF1 names for every model variable, and assign_weights' checks."""

import warnings

import numpy as np
import pytest

from keras_bert import BertConfig, build_pretrainer
from keras_bert.checkpoints.checkpoint_contents import CheckpointContents
from keras_bert.checkpoints.weight_map import (
    BLOCK_PARTS, assign_weights, is_training_state, model_variables, model_weights)

CONFIG = BertConfig(vocab_size=30, hidden_size=8, num_layers=2, num_heads=2, intermediate_size=16,
                    max_position_embeddings=16)


@pytest.fixture(scope="module")
def pretrainer():
    return build_pretrainer(CONFIG)


def test_every_variable_has_one_google_name(pretrainer):
    entries = model_variables(pretrainer)
    names = [name for name, _, _ in entries]
    # 5 embedding, 2 per block part, 2 pooler, 7 in the heads.
    assert len(names) == len(set(names)) == 5 + CONFIG.num_layers * 2 * len(BLOCK_PARTS) + 2 + 7
    assert len(entries) == len(pretrainer.weights)
    assert [name for name, _, transposed in entries if transposed] == ["cls/seq_relationship/output_weights"]
    assert model_weights(pretrainer)["cls/seq_relationship/output_weights"].shape == (2, 8)
    assert len(model_variables(pretrainer.encoder)) == len(entries) - 7


def test_training_state_is_recognised():
    assert is_training_state("bert/pooler/dense/kernel/adam_m")
    assert is_training_state("global_step")
    assert not is_training_state("bert/pooler/dense/kernel")


def test_assign_weights_copies_and_checks(pretrainer):
    weights = {name: np.random.default_rng(0).normal(size=value.shape).astype("float32")
               for name, value in model_weights(pretrainer).items()}
    target = build_pretrainer(CONFIG)
    assign_weights(target, CheckpointContents(CONFIG, weights, "src"))
    for name, value in model_weights(target).items():
        np.testing.assert_array_equal(value, weights[name], err_msg=name)
    # Without the next-sentence head: a warning, and that head keeps its values.
    no_nsp = {n: v for n, v in weights.items() if not n.startswith("cls/seq_relationship/")}
    with pytest.warns(UserWarning, match="src has no next-sentence head"):
        assign_weights(build_pretrainer(CONFIG), CheckpointContents(CONFIG, no_nsp, "src"))
    bad = dict(weights, **{"bert/pooler/dense/bias": np.zeros(9, "float32")})
    with pytest.raises(ValueError, match=r"src: variable 'bert/pooler/dense/bias' has shape \(9,\) .* expects \(8,\)"):
        assign_weights(target, CheckpointContents(CONFIG, bad, "src", config_file="config.json"))
    encoder_only = {n: v for n, v in weights.items() if n != "bert/encoder/layer_1/output/dense/bias"}
    with pytest.raises(ValueError, match="src lacks 1 encoder weight"):
        assign_weights(target, CheckpointContents(CONFIG, encoder_only, "src"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assign_weights(target.encoder, CheckpointContents(CONFIG, weights, "src"))  # heads are simply unused
