"""models/modernbert/modernbert_converter.py: one rule for the encoder (`model.`), a table for the heads."""

from keras_bert.models.modernbert.modernbert_converter import MODERNBERT_CONVERTER as CONVERTER


def test_modernbert_names_both_ways():
    assert CONVERTER.canonical_name("model.layers.0.attn.Wqkv.weight") == ("layers.0.attn.Wqkv.weight", False)
    assert CONVERTER.hf_name("layers.0.attn.Wqkv.weight", "ForMaskedLM") == ("model.layers.0.attn.Wqkv.weight", False)
    assert CONVERTER.hf_name("layers.0.attn.Wqkv.weight", "Model") == ("layers.0.attn.Wqkv.weight", False)
    assert CONVERTER.hf_name("head.dense.weight", "Model") is None  # ModernBertModel holds no prediction head
    assert CONVERTER.hf_name("head.dense.weight", "ForMaskedLM") == ("head.dense.weight", False)
    assert CONVERTER.canonical_name("decoder.bias") == ("cls/predictions/output_bias", False)
    qa = "ForQuestionAnswering"  # its QA head is a `classifier`
    assert CONVERTER.canonical_name("classifier.bias", qa) == ("cls/squad/output_bias", False)
    assert CONVERTER.hf_name("cls/squad/output_weights", qa) == ("classifier.weight", False)
