"""models/bert_converter.py: BERT's Hugging Face names as a table: every weight of a pretrainer named once, both ways."""

from keras_bert.models import BertPretrainer
from keras_bert.models.bert_converter import BertConverter, match_name
from keras_bert.checkpoints.weight_map import model_variables

from tests.models.tiny_bert import TINY


def test_every_canonical_name_of_a_pretrainer_has_one_hf_name_and_reads_back():
    converter = BertConverter()
    canonical = [name for name, _, _ in model_variables(BertPretrainer(TINY))]
    hf = [converter.hf_name(name) for name in canonical]
    assert None not in hf and len({name for name, _ in hf}) == len(canonical)
    assert [converter.canonical_name(name) for name, _ in hf] == [
        (name, transposed) for name, (_, transposed) in zip(canonical, hf)]
    assert converter.canonical_name("encoder.layer.1.output.LayerNorm.gamma") == (  # old names, without the prefix
        "bert/encoder/layer_1/output/LayerNorm/gamma", False)
    assert converter.canonical_name("cls.predictions.decoder.bias") == ("cls/predictions/output_bias", False)
    assert converter.hf_name("cls/predictions/output_bias") == ("cls.predictions.bias", False)  # the first rule
    assert converter.canonical_name("unknown.weight") is None


def test_a_layer_rule_carries_its_index_and_a_config_reads_back():
    rules = (("a.{i}.b.weight", "x/layer_{i}/kernel", True),)
    assert match_name("a.12.b.weight", rules) == ("x/layer_12/kernel", True)
    assert match_name("x/layer_3/kernel", rules, source=1) == ("a.3.b.weight", True)
    assert match_name("a.1.b.weightx", rules) is None
    converter = BertConverter()
    assert converter.read_config(converter.write_config(TINY), "config.json") == TINY
