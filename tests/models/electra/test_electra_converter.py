"""models/electra/electra_converter.py: ELECTRA's names: its projection, its generator's head, no base pooler."""

from keras_bert.models.electra.electra_converter import ELECTRA_CONVERTER as CONVERTER


def test_electra_names_both_ways():
    cases = {("electra.embeddings_project.weight", None): ("bert/embeddings_project/kernel", True),
             ("generator_predictions.LayerNorm.bias", None): ("cls/predictions/transform/LayerNorm/beta", False),
             ("generator_lm_head.bias", None): ("cls/predictions/output_bias", False),
             ("classifier.dense.weight", "ForSequenceClassification"): ("bert/pooler/dense/kernel", True),
             ("classifier.out_proj.bias", "ForSequenceClassification"): ("output_bias", False)}
    for (hf, suffix), canonical in cases.items():
        assert CONVERTER.canonical_name(hf, suffix) == canonical
        assert CONVERTER.hf_name(canonical[0], suffix) == (hf, canonical[1])
    assert CONVERTER.hf_name("bert/pooler/dense/kernel", "Model") is None  # ElectraModel has no pooler
    assert not CONVERTER.base_pooler and CONVERTER.tied_decoder == "generator_lm_head.weight"
