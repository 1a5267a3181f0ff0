"""DebertaV3Config: transformers' DebertaV2Config dict both ways (DeBERTa-v3's settings and v2's); what keras_bert
does not build, or a wrong value, is one line naming the file and the field."""

import pytest

from keras_bert.models.deberta_v3 import DebertaV3Config
from tests.models.deberta_v3.tiny_deberta import TINY_HF, V2_HF


@pytest.mark.parametrize("raw", [TINY_HF, V2_HF])
def test_huggingface_dicts_both_ways(raw):
    transformers = pytest.importorskip("transformers")
    config = DebertaV3Config.from_huggingface_dict(dict(raw, model_type="deberta-v2"))
    assert (config.num_layers, config.pos_att_type, config.type_vocab_size) == (2, ("p2c", "c2p"),
                                                                                 raw["type_vocab_size"])
    written = config.to_huggingface_dict()
    theirs = transformers.DebertaV2Config(**written)
    assert DebertaV3Config.from_huggingface_dict(theirs.to_dict()) == config
    assert DebertaV3Config.from_dict(config.to_dict()) == config
    assert (config.relative_span, config.max_distance) == ((16, 64) if raw is TINY_HF else (32, 32))


def test_pipe_separated_position_terms_and_defaults_of_an_old_config():
    config = DebertaV3Config.from_huggingface_dict({"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                                                    "num_attention_heads": 2, "intermediate_size": 16,
                                                    "pos_att_type": "c2p|p2c"})
    assert (config.pos_att_type, config.relative_attention, config.position_biased_input) == (
        ("c2p", "p2c"), False, True)
    assert config.relative_span == 512  # no buckets, no max_relative_positions: max_position_embeddings


@pytest.mark.parametrize("change, message", [
    ({"conv_kernel_size": 3}, r"^x/config.json: conv_kernel_size=3; keras_bert builds DeBERTa without it"),
    ({"embedding_size": 16}, r"^x/config.json: embedding_size=16; keras_bert builds DeBERTa without it"),
    ({"pos_att_type": ["p2p"]}, r"^x/config.json: DebertaV3Config.pos_att_type holds \['p2p'\]"),
    ({"hidden_act": "swish"}, r"^x/config.json: hidden_act 'swish' is not supported"),
    ({"model_type": "deberta"}, r"^x/config.json: model_type 'deberta' is not DeBERTa-v2/v3"),
])
def test_what_keras_bert_does_not_build_is_one_line(change, message):
    with pytest.raises(ValueError, match=message):
        DebertaV3Config.from_huggingface_dict(dict(TINY_HF, **change), "x/config.json")
