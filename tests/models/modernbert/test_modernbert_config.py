"""ModernBertConfig: HF config.json (5.x layer_types / rope_parameters, 4.x flat keys) both ways, one-line errors."""

import json

import pytest

from keras_bert.models.modernbert import ModernBertConfig
from tests.models.modernbert.tiny_modernbert import TINY_HF


def test_reads_what_transformers_writes_and_writes_what_it_reads(tmp_path):
    transformers = pytest.importorskip("transformers")
    hf = transformers.ModernBertConfig(**dict(TINY_HF, num_hidden_layers=7, global_attn_every_n_layers=2,
                                              global_rope_theta=80000.0, hidden_activation="gelu_pytorch_tanh"))
    hf.save_pretrained(tmp_path)
    config = ModernBertConfig.from_huggingface_dict(json.loads((tmp_path / "config.json").read_text()))
    assert (config.num_layers, config.global_attn_every_n_layers, config.local_attention) == (7, 2, 16)
    assert (config.global_rope_theta, config.local_rope_theta, config.hidden_act) == (80000.0, 10000.0, "gelu_tanh")
    assert config.layer_types == tuple("global" if t == "full_attention" else "local" for t in hf.layer_types)
    back = transformers.ModernBertConfig(**config.to_huggingface_dict())
    assert back.layer_types == hf.layer_types and back.rope_parameters == hf.rope_parameters
    assert ModernBertConfig.from_huggingface_dict(config.to_huggingface_dict()) == config
    assert ModernBertConfig.from_dict(config.to_dict()) == config


def test_reads_the_released_4x_style_keys():
    raw = dict(TINY_HF, model_type="modernbert", global_attn_every_n_layers=3, global_rope_theta=160000.0,
               local_rope_theta=10000.0, local_attention=128, norm_bias=False)
    config = ModernBertConfig.from_huggingface_dict(raw)
    assert config.layer_types == ("global", "local", "local") and config.half_window == 64


@pytest.mark.parametrize("change,message", [
    ({"model_type": "bert"}, r"x.json: model_type 'bert' is not ModernBERT; expected one of \('modernbert',\)"),
    ({"layer_types": ["sliding_attention"] * 3}, r"x.json: layer_types .* only that ModernBERT pattern"),
    ({"rope_parameters": {"full_attention": {"rope_type": "yarn"}}}, r"rope_type 'yarn'; only the default"),
    ({"hidden_activation": "silu"}, r"x.json: hidden_activation 'silu' is not supported"),
    ({"hidden_size": None}, r"ModernBertConfig.hidden_size must be a positive integer, got None"),
])
def test_unsupported_configs_are_one_line(change, message):
    raw = dict(TINY_HF, model_type="modernbert") | change
    with pytest.raises(ValueError, match=message):
        ModernBertConfig.from_huggingface_dict(raw, source="x.json")


def test_missing_field_and_bad_values_are_one_line():
    with pytest.raises(ValueError, match=r"x.json lacks the ModernBERT config field 'vocab_size'"):
        ModernBertConfig.from_huggingface_dict({"hidden_size": 8}, source="x.json")
    with pytest.raises(ValueError, match=r"classifier_pooling must be one of \('cls', 'mean'\), got 'max'"):
        ModernBertConfig(classifier_pooling="max")
    with pytest.raises(ValueError, match=r"local_attention must be an integer >= 2, got 1"):
        ModernBertConfig(local_attention=1)
