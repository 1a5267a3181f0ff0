"""DEBERTA_V3: one record (its converter, encoder, `spm` tokenizer, keras-hub layout), found by config.json's
`model_type` and by its config; registered by one line in FAMILIES."""

import pytest

from keras_bert.models.deberta_v3 import DEBERTA_V3, DebertaV3Config, DebertaV3Encoder
from keras_bert.models.deberta_v3.deberta_v3_converter import DEBERTA_V3_CONVERTER
from keras_bert.models.deberta_v3.deberta_v3_keras_hub import DEBERTA_V3_PRESET
from keras_bert.models.families import FAMILIES, family_for_model_type, family_of


def test_deberta_is_one_family_record():
    family = family_for_model_type("deberta-v2")
    assert family is DEBERTA_V3 is FAMILIES["deberta_v3"]
    assert (family.encoder_class, family.config_class, family.converter, family.tokenizer, family.keras_hub) == (
        DebertaV3Encoder, DebertaV3Config, DEBERTA_V3_CONVERTER, "spm", DEBERTA_V3_PRESET)
    assert (family.next_sentence, family.mask_rate, family.converter.architecture("ForMaskedLM")) == (
        False, 0.15, "DebertaV2ForMaskedLM")
    assert family_of(DebertaV3Config(vocab_size=10, hidden_size=8, num_layers=1, num_heads=2)) is family
    with pytest.raises(ValueError, match="keras_bert reads model_type .*'deberta-v2'"):
        family_for_model_type("deberta")
