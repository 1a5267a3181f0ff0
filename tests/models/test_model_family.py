"""models/model_family.py: a family's record: its config class (its converter's), masked-LM head, config.json."""

import pytest

from keras_bert.models import BertEncoder
from keras_bert.models.families import BERT, ELECTRA, MODERNBERT
from keras_bert.models.modernbert import ModernBertConfig

from tests.models.tiny_bert import TINY


def test_a_record_builds_its_head_and_names_its_config_json():
    assert BERT.config_class.__name__ == "BertConfig" and MODERNBERT.config_class is ModernBertConfig
    head = ELECTRA.build_masked_lm_head(TINY, BertEncoder(TINY))  # its generator's head: the exact GELU
    assert head.get_config()["hidden_act"] == "gelu"
    raw = ELECTRA.huggingface_config(TINY, "ElectraForMaskedLM")
    assert (raw["model_type"], raw["architectures"], raw["embedding_size"]) == ("electra", ["ElectraForMaskedLM"], 16)
    assert ELECTRA.config_from_huggingface(raw, "x/config.json") == TINY.replace(family="electra",
                                                                                  pooler_activation="gelu")
    with pytest.raises(ValueError, match=r"^x/config.json: "):
        BERT.config_from_huggingface(dict(raw, hidden_size="big"), "x/config.json")
