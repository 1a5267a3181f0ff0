"""FAMILIES: the model families, one line each; the lookups by config.json `model_type` and by config.

A family is a folder under `keras_bert/models/` holding its record (`ModelFamily`), its converter and, where
not BERT's, its config and encoder: `electra/`, `distilbert/`, `modernbert/`. BERT and its true clones,
RoBERTa and XLM-R (BERT's converter under their prefix, their masked-LM head's names, positions after the
padding row), are records here. Adding a family: its folder and one line in `FAMILIES`
(docs/DESIGN.md, "A model family").
"""

from keras_bert.config import BertConfig
from keras_bert.models.bert_converter import EMBEDDINGS, LAYER, POOLER, POOLER_CLASSIFIER, BertConverter, dense, norm
from keras_bert.models.deberta_v3 import DEBERTA_V3
from keras_bert.models.distilbert import DISTILBERT
from keras_bert.models.electra import ELECTRA
from keras_bert.models.keras_hub_layouts import BERT_PRESET, ROBERTA_PRESET, XLM_ROBERTA_PRESET
from keras_bert.models.model_family import ModelFamily
from keras_bert.models.modernbert import MODERNBERT


class RobertaConverter(BertConverter):
    """BERT's converter; RoBERTa's positions start after its `pad_token_id` row (`padding_idx + 1`)."""

    def config_fields_of(self, raw):
        value = raw.get("pad_token_id", 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"pad_token_id is {value!r}; expected the padding token's id, an integer >= 0 "
                             "(RoBERTa: 1).")
        return dict(super().config_fields_of(raw), position_offset=value + 1)

    def write_config(self, config):
        return dict(super().write_config(config), pad_token_id=config.position_offset - 1, bos_token_id=0,
                    eos_token_id=2)


def _roberta(class_prefix):
    """RoBERTa's masked-LM head (`lm_head`) is BERT's `cls.predictions` under other names; its sequence head's
    `classifier.dense` + tanh is BERT's pooler, `classifier.out_proj` BERT's classifier."""
    return RobertaConverter(
        prefix="roberta", class_prefix=class_prefix, pretraining_suffix="ForMaskedLM",
        base=EMBEDDINGS + LAYER + POOLER,
        heads=(*dense("lm_head.dense", "cls/predictions/transform/dense"),
               *norm("lm_head.layer_norm", "cls/predictions/transform/LayerNorm"),
               ("lm_head.bias", "cls/predictions/output_bias", False),
               ("lm_head.decoder.bias", "cls/predictions/output_bias", False)),  # read: a copy of lm_head.bias
        tied_decoder="lm_head.decoder.weight", head_names={"ForSequenceClassification": POOLER_CLASSIFIER})


BERT = ModelFamily("bert", ("bert",), next_sentence=True, keras_hub=BERT_PRESET)
ROBERTA = ModelFamily("roberta", ("roberta",), _roberta("Roberta"), tokenizer="byte_bpe", keras_hub=ROBERTA_PRESET)
XLM_ROBERTA = ModelFamily("xlm_roberta", ("xlm-roberta",), _roberta("XLMRoberta"), tokenizer="sentencepiece",
                          keras_hub=XLM_ROBERTA_PRESET)

FAMILIES = {family.name: family for family in (BERT, ROBERTA, XLM_ROBERTA, ELECTRA, DISTILBERT, MODERNBERT,
                                                DEBERTA_V3)}
ENCODER_CLASSES = tuple(dict.fromkeys(family.encoder_class for family in FAMILIES.values()))


def family_for_model_type(model_type, source="config.json"):
    """The family reading config.json's `model_type`; one line naming the known ones for any other."""
    for family in FAMILIES.values():
        if model_type in family.model_types:
            return family
    known = sorted(t for family in FAMILIES.values() for t in family.model_types)
    raise ValueError(f"{source} describes a {model_type!r} model; keras_bert reads model_type "
                     f"{', '.join(repr(t) for t in known)}.")


def family_of(config):
    """The family of a config (its `family` field); one line naming the known ones for any other."""
    own = [f for f in FAMILIES.values() if f.config_class is not BertConfig and isinstance(config, f.config_class)]
    if own:  # a family with its own config class (ModernBERT)
        return own[0]
    name = getattr(config, "family", "bert")
    if name not in FAMILIES:
        raise ValueError(f"The model's config names family {name!r}; keras_bert knows {sorted(FAMILIES)}.")
    return FAMILIES[name]


def build_family_encoder(config, **kwargs):
    """The encoder of `config`'s family (its `encoder_class`) built from `config`."""
    return family_of(config).encoder_class(config, **kwargs)


def bind_pair_layout(tokenizer, config):
    """`tokenizer` (returned), packing text pairs as a model of `config` reads them: with the tokenizer's
    separators (its `pair_layout`), B typed 1 only where the model has a second token type row (BERT, ELECTRA);
    a family with one row or none (DistilBERT, ModernBERT) types every piece 0, as its transformers tokenizer
    does. Every pair-taking reader and signature packs with the tokenizer's `pair_layout` (`text/packer.py`)."""
    layout = getattr(tokenizer, "pair_layout", "bert")
    if tokenizer is not None and layout in ("bert", "bert_one_type"):
        tokenizer.pair_layout = "bert" if (getattr(config, "type_vocab_size", None) or 1) > 1 else "bert_one_type"
    return tokenizer
