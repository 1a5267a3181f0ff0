import numpy as np
import pytest
import torch
from transformers import BertConfig as HFBertConfig
from transformers.models.bert.modeling_bert import BertLayer

from keras_bert.layers import TransformerEncoderBlock
from tests.layers.layer_checks import check_layer, to_numpy


def make_layer(**overrides):
    args = dict(hidden_size=16, num_heads=2, intermediate_size=32, dropout_rate=0.0,
                attention_dropout_rate=0.0)
    args.update(overrides)
    return TransformerEncoderBlock(**args)


def test_standard_layer_checks():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 6, 16)).astype("float32")
    mask = np.ones((3, 6), "int32")
    check_layer(make_layer, [x, mask], (3, 6, 16))


def test_padding_does_not_change_real_positions():
    layer = make_layer()
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, 16)).astype("float32")
    short = to_numpy(layer(x, np.ones((2, 5), "int32")))
    padded_x = np.concatenate([x, rng.normal(size=(2, 4, 16)).astype("float32")], axis=1)
    padded_mask = np.concatenate([np.ones((2, 5), "int32"), np.zeros((2, 4), "int32")], axis=1)
    padded = to_numpy(layer(padded_x, padded_mask))
    np.testing.assert_allclose(padded[:, :5], short, atol=1e-5)


@pytest.mark.parametrize("hidden_act, hf_act, training", [
    ("gelu", "gelu", False), ("gelu_tanh", "gelu_new", False),
    ("gelu", "gelu", True)])  # training flattens to (batch * seq, hidden); dropout is 0 here
def test_matches_hugging_face_bert_layer(hidden_act, hf_act, training):
    """Same weights into transformers' BertLayer (an independent implementation)."""
    layer = make_layer(hidden_act=hidden_act, layer_norm_eps=1e-12)
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 6, 16)).astype("float32")
    mask = np.array([[1] * 6, [1] * 4 + [0] * 2], "int32")
    ours = to_numpy(layer(x, mask, training=training))

    hf_layer = BertLayer(HFBertConfig(hidden_size=16, num_attention_heads=2, intermediate_size=32,
                                      hidden_act=hf_act, layer_norm_eps=1e-12,
                                      attn_implementation="eager")).eval()
    state = {}
    for ours_name, hf_name in [("query", "attention.self.query"), ("key", "attention.self.key"),
                               ("value", "attention.self.value"),
                               ("attention_output", "attention.output.dense"),
                               ("intermediate", "intermediate.dense"), ("output_dense", "output.dense")]:
        dense = getattr(layer, ours_name)
        state[f"{hf_name}.weight"] = torch.from_numpy(to_numpy(dense.kernel).T.copy())
        state[f"{hf_name}.bias"] = torch.from_numpy(to_numpy(dense.bias))
    for ours_name, hf_name in [("attention_layer_norm", "attention.output.LayerNorm"),
                               ("output_layer_norm", "output.LayerNorm")]:
        norm = getattr(layer, ours_name)
        state[f"{hf_name}.weight"] = torch.from_numpy(to_numpy(norm.gamma))
        state[f"{hf_name}.bias"] = torch.from_numpy(to_numpy(norm.beta))
    hf_layer.load_state_dict(state)
    bias = torch.from_numpy((1.0 - mask[:, None, None, :].astype("float32")) * -1e9)
    with torch.no_grad():
        reference = hf_layer(torch.from_numpy(x), attention_mask=bias)
    reference = (reference[0] if isinstance(reference, tuple) else reference).numpy()
    np.testing.assert_allclose(ours[1, :4], reference[1, :4], atol=1e-5)
    np.testing.assert_allclose(ours[0], reference[0], atol=1e-5)


def test_heads_must_divide_hidden_size():
    with pytest.raises(ValueError, match="divisible by num_heads"):
        make_layer(hidden_size=10, num_heads=3)
