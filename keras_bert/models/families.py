"""FAMILIES: the model families (BERT, RoBERTa, XLM-R, ELECTRA, DistilBERT, ModernBERT), one record each.

A family record says what checkpoints need to read and write a family without naming it: the
Hugging Face `model_type`s it reads, its config and encoder classes, its HF weight prefix and class
names, how its HF weight names map onto BERT's (whose Google names are the canonical names of
every BERT-shaped family; ModernBERT's canonical names are its own HF names without `model.`), its
pretraining's masked-LM head and masking rate, and its tokenizer kind. Adding a family: one record,
one line in `FAMILIES` (docs/DESIGN.md, "A model family").
"""

import dataclasses

from keras_bert.config import BertConfig
from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.layers.modernbert_masked_lm_head import ModernBertMaskedLMHead
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.deberta_v3.deberta_v3_record import FAMILY_FIELDS as DEBERTA_V3_FIELDS
from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder
from keras_bert.models.modernbert.modernbert_weights import POOLER_PREFIX, to_canonical, to_huggingface

_BERT_PREFIX = "bert."  # BERT's HF prefix: the one the canonical (Google) names convert through


@dataclasses.dataclass(frozen=True)
class ModelFamily:
    """One model family: its names in Hugging Face checkpoints and the classes that build it.

    Args:
        name: the family's name, as `BertConfig.family` carries it.
        model_types: config.json `model_type`s this family reads (the first is the one it writes).
        config_class, encoder_class: its config dataclass and its encoder (a keras.Model).
        hf_prefix: the base model's prefix in HF head classes' weight names (`roberta.` ...).
        hf_class_prefix: the HF class names' stem (`Roberta` -> `RobertaForSequenceClassification`).
        pretraining_suffix: the HF class of the pretrainer after the stem (`ForPreTraining`).
        next_sentence: whether its pretrainer has BERT's next-sentence head.
        tokenizer: its tokenizer kind ("wordpiece", "byte_bpe", "sentencepiece").
        hf_renames: (HF name prefix, BERT's HF name prefix) pairs for its other weight names.
        head_renames: HF class suffix (`ForSequenceClassification`) -> more such pairs for that head.
        hf_config: config.json entries of this family beyond BERT's (token ids); a function of the config.
        hf_config_fields: a function of a config.json dict -> the `BertConfig` fields it decides.
        pooler: whether its base model has BERT's pooler (ELECTRA has none: none is written).
        base_pooler: whether its base model's file (`...Model`) holds what keras_bert's pooler reads (ModernBERT's
            prediction `head` is in its head classes' files only).
        unsupported: HF class suffixes this family has that keras_bert's heads do not hold.
        hf_parts: (HF name part, BERT's name part) pairs replaced inside names (DistilBERT's `.ffn.lin1.`).
        hf_config_keys: BERT's config.json key -> this family's (DistilBERT's `dim` for `hidden_size`).
        token_types: whether it has token type embeddings (DistilBERT: none; keras_bert holds one zero row).
        canonical_encoder_name: for a family whose canonical names are its own (ModernBERT: HF's without the
            prefix), its HF encoder weight name -> canonical name; None: BERT's (Google's) through `hf_renames`.
        hf_encoder_name: the reverse, `(canonical, base)` -> HF name (`base`: a base-model file, None: not
            written there); None: BERT's route.
        pooler_prefix: the canonical prefix of the weights a base model's file may lack (BERT's pooler).
        mask_rate: its pretraining's share of masked tokens (BERT 15 %, ModernBERT 30 %).
        masked_lm_head: `(config, encoder, dtype, name)` -> its pretrainer's masked-LM head layer (None: BERT's
            `MaskedLMHead`, tied to the word embeddings).
        keras_hub_backbone, keras_hub_tokenizer: keras-hub's class names for it (`RobertaBackbone`); None: no
            keras-hub preset is read or written.
        keras_hub_layout: that backbone's weight layout (`checkpoints/keras_hub_layouts.py`'s `LAYOUTS` key).
        masked_lm_act: that `MaskedLMHead`'s activation (ELECTRA's generator: "gelu"); None: the config's hidden_act.
        hf_embedding_size: whether its config.json has `embedding_size` (ELECTRA: where it differs from
            hidden_size, an `embeddings_project` follows the embeddings); a family without it cannot save one.
        pretraining_config: `(BertConfig, pad_id)` -> its config to pretrain from scratch in that shape (a preset's
            sizes; ModernBERT: `ModernBertConfig.from_bert_shape`); None: the `BertConfig` as this family's.
    """

    name: str
    model_types: tuple
    config_class: type = BertConfig
    encoder_class: type = BertEncoder
    hf_prefix: str = "bert"
    hf_class_prefix: str = "Bert"
    pretraining_suffix: str = "ForPreTraining"
    next_sentence: bool = True
    tokenizer: str = "wordpiece"
    hf_renames: tuple = ()
    head_renames: dict = dataclasses.field(default_factory=dict)
    hf_config: object = None
    hf_config_fields: object = None
    pooler: bool = True
    base_pooler: bool = True
    unsupported: tuple = ()
    hf_parts: tuple = ()
    hf_config_keys: dict = dataclasses.field(default_factory=dict)
    token_types: bool = True
    canonical_encoder_name: object = None
    hf_encoder_name: object = None
    pooler_prefix: str = "bert/pooler/"
    mask_rate: float = 0.15
    masked_lm_head: object = None
    keras_hub_backbone: str = None
    keras_hub_tokenizer: str = None
    keras_hub_layout: str = None
    masked_lm_act: str = None
    hf_embedding_size: bool = False
    pretraining_config: object = None

    def build_masked_lm_head(self, config, encoder, dtype=None, name="mlm_head"):
        """Its pretrainer's masked-LM head on `encoder` (tied to its token embeddings)."""
        if self.masked_lm_head is not None:
            return self.masked_lm_head(config, encoder, dtype, name)
        return MaskedLMHead(vocab_size=config.vocab_size, hidden_size=config.hidden_size,
                            hidden_act=self.masked_lm_act or config.hidden_act,
                            initializer_range=config.initializer_range, layer_norm_eps=config.layer_norm_eps,
                            embedding_layer=encoder.embeddings, embedding_size=config.embedding_size, dtype=dtype,
                            name=name)

    def config_from_huggingface(self, raw, source_path):
        """The `BertConfig` of a config.json dict of this family."""
        raw = dict(raw, **{bert: raw[ours] for bert, ours in self.hf_config_keys.items() if ours in raw})
        try:
            config = self.config_class.from_huggingface_dict(raw, source_path)
            fields = self.hf_config_fields(raw) if self.hf_config_fields else {}
            if self.hf_embedding_size and raw.get("embedding_size", config.hidden_size) != config.hidden_size:
                fields["embedding_size"] = raw["embedding_size"]  # equal: None, no projection (as HF builds none)
            if any(field.name == "family" for field in dataclasses.fields(config)):  # BertConfig carries its family
                fields["family"] = self.name
            return config.replace(**fields)
        except (TypeError, ValueError) as error:  # a field of the wrong type or value: the file named once
            message = str(error)
            raise ValueError(message if str(source_path) in message else f"{source_path}: {message}") from None

    def huggingface_config(self, config, architecture):
        """config.json's dict for `config` saved as HF's `architecture`."""
        extra = self.hf_config(config) if self.hf_config else {}
        if self.hf_embedding_size:
            extra["embedding_size"] = config.embedding_width
        elif getattr(config, "embedding_size", None) not in (None, config.hidden_size):
            raise ValueError(f"This model has embedding_size={config.embedding_size} != hidden_size="
                             f"{config.hidden_size}, which Hugging Face's {self.hf_class_prefix} classes do not hold; "
                             "save it as 'keras'.")
        values = {self.hf_config_keys.get(key, key): value for key, value in config.to_huggingface_dict().items()}
        return dict(values, **extra, model_type=self.model_types[0], architectures=[architecture])

    def architecture(self, suffix):
        """This family's HF class name for a BERT class name's suffix (`ForMaskedLM`, `Model`); one line
        for a head this family's classes hold otherwise."""
        if suffix in self.unsupported:
            raise ValueError(f"keras_bert does not hold {self.hf_class_prefix}{suffix} (its head differs from "
                             f"Bert{suffix}'s); save the model with model.save('model.keras').")
        return self.hf_class_prefix + suffix

    def architecture_suffix(self, architecture):
        """`BertForX`'s `ForX` for one of this family's HF class names, else None."""
        stem = self.hf_class_prefix
        return architecture.removeprefix(stem) if architecture.startswith(stem) else None

    def _pairs(self, suffix):
        return tuple(self.head_renames.get(suffix, ())) + tuple(self.hf_renames)

    def to_bert_name(self, hf_name, suffix=None):
        """This family's HF weight name -> BERT's HF name (`roberta.x` -> `bert.x`, renamed heads)."""
        if hf_name.startswith(self.hf_prefix + "."):
            hf_name = _BERT_PREFIX + hf_name[len(self.hf_prefix) + 1:]
        for ours, bert in self.hf_parts:
            hf_name = hf_name.replace(ours, bert)
        for ours, bert in self._pairs(suffix):
            if hf_name.startswith(ours):
                return bert + hf_name[len(ours):]
        return hf_name

    def from_bert_name(self, bert_name, suffix=None):
        """BERT's HF weight name (as `BertForPreTraining` or a `BertFor...` head saves it) -> this family's."""
        for ours, bert in self._pairs(suffix):
            if bert_name.startswith(bert):
                return ours + bert_name[len(bert):]
        for ours, bert in self.hf_parts:
            bert_name = bert_name.replace(bert, ours)
        if bert_name.startswith(_BERT_PREFIX):
            return self.hf_prefix + "." + bert_name[len(_BERT_PREFIX):]
        return bert_name


def _pad_token_id(raw):
    """RoBERTa's `pad_token_id` (its positions start after it), one line naming the field if not an integer."""
    value = raw.get("pad_token_id", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"pad_token_id is {value!r}; expected the padding token's id, an integer >= 0 (RoBERTa: 1).")
    return value


# RoBERTa's masked-LM head (`lm_head`) is BERT's `cls.predictions` under other names; its
# sequence head's `classifier.dense` + tanh is BERT's pooler, `classifier.out_proj` BERT's classifier; its
# positions start after the padding row (`padding_idx + 1`).
_ROBERTA = dict(
    pretraining_suffix="ForMaskedLM", next_sentence=False,
    hf_renames=(("lm_head.dense.", "cls.predictions.transform.dense."),
                ("lm_head.layer_norm.", "cls.predictions.transform.LayerNorm."),
                ("lm_head.decoder.", "cls.predictions.decoder."),
                ("lm_head.bias", "cls.predictions.bias")),
    head_renames={"ForSequenceClassification": (("classifier.dense.", "bert.pooler.dense."),
                                                ("classifier.out_proj.", "classifier."))},
    hf_config=lambda config: {"pad_token_id": config.position_offset - 1, "bos_token_id": 0, "eos_token_id": 2},
    hf_config_fields=lambda raw: {"position_offset": _pad_token_id(raw) + 1})

ELECTRA = ModelFamily(
    "electra", ("electra",), hf_prefix="electra", hf_class_prefix="Electra", pretraining_suffix="ForMaskedLM",
    next_sentence=False, pooler=False, unsupported=("ForMultipleChoice", "ForPreTraining"),
    hf_renames=(("generator_predictions.dense.", "cls.predictions.transform.dense."),
                ("generator_predictions.LayerNorm.", "cls.predictions.transform.LayerNorm."),
                ("generator_lm_head.bias", "cls.predictions.bias"),
                ("generator_lm_head.weight", "cls.predictions.decoder.weight")),
    head_renames=_ROBERTA["head_renames"], masked_lm_act="gelu", hf_embedding_size=True,
    hf_config_fields=lambda raw: {"pooler_activation": "gelu"})  # its sequence head's dense is a GELU pooler
# DistilBERT: BERT's layers under other names, no token types, no pooler; its heads' `pre_classifier` + ReLU is a
# ReLU pooler. Parts are replaced in this order both ways (the attention's output before the block's).
DISTILBERT = ModelFamily(
    "distilbert", ("distilbert",), hf_prefix="distilbert", hf_class_prefix="DistilBert",
    pretraining_suffix="ForMaskedLM", next_sentence=False, pooler=False, token_types=False,
    hf_parts=(("transformer.layer.", "encoder.layer."), (".attention.q_lin.", ".attention.self.query."),
              (".attention.k_lin.", ".attention.self.key."), (".attention.v_lin.", ".attention.self.value."),
              (".attention.out_lin.", ".attention.output.dense."), (".sa_layer_norm.", ".attention.output.LayerNorm."),
              (".ffn.lin1.", ".intermediate.dense."), (".ffn.lin2.", ".output.dense."),
              (".output_layer_norm.", ".output.LayerNorm.")),
    hf_renames=(("vocab_transform.", "cls.predictions.transform.dense."),
                ("vocab_layer_norm.", "cls.predictions.transform.LayerNorm."),
                ("vocab_projector.bias", "cls.predictions.bias"), ("vocab_projector.weight", "cls.predictions.decoder.weight")),
    head_renames={suffix: (("pre_classifier.", "bert.pooler.dense."),)
                  for suffix in ("ForSequenceClassification", "ForMultipleChoice")},
    hf_config_keys={"hidden_size": "dim", "num_hidden_layers": "n_layers", "num_attention_heads": "n_heads",
                    "intermediate_size": "hidden_dim", "hidden_act": "activation", "hidden_dropout_prob": "dropout",
                    "attention_probs_dropout_prob": "attention_dropout"},
    hf_config_fields=lambda raw: {"type_vocab_size": 1, "pooler_activation": "relu"})
def _modernbert_hf_name(canonical, base):
    """ModernBERT's HF name of a canonical encoder name: `model.`-prefixed in its head classes' files, bare in
    `ModernBertModel`'s, which holds no prediction `head.*` (keras_bert's pooler): None there."""
    if base:
        return None if canonical.startswith(POOLER_PREFIX) else canonical
    return to_huggingface(canonical)


# ModernBERT: its own canonical names (HF's without `model.`); its `head.*` is the encoder's pooler (what sequence
# heads read) and, per token, what its token and span heads and its masked LM read; its decoder is tied.
MODERNBERT = ModelFamily(
    "modernbert", ("modernbert",), config_class=ModernBertConfig, encoder_class=ModernBertEncoder,
    hf_prefix="model", hf_class_prefix="ModernBert", pretraining_suffix="ForMaskedLM", next_sentence=False,
    tokenizer="byte_bpe", hf_renames=(("decoder.bias", "cls.predictions.bias"),
                                      ("decoder.weight", "cls.predictions.decoder.weight")),
    head_renames={"ForQuestionAnswering": (("classifier.", "qa_outputs."),)},  # its QA head is a `classifier`
    canonical_encoder_name=to_canonical, hf_encoder_name=_modernbert_hf_name, pooler_prefix=POOLER_PREFIX,
    base_pooler=False, mask_rate=0.3, pretraining_config=ModernBertConfig.from_bert_shape,
    masked_lm_head=lambda config, encoder, dtype, name: ModernBertMaskedLMHead(
        config.vocab_size, decoder_bias=config.decoder_bias, prediction_head=encoder.head,
        embedding_layer=encoder.embeddings, dtype=dtype, name=name))
BERT = ModelFamily("bert", ("bert",), keras_hub_backbone="BertBackbone", keras_hub_tokenizer="BertTokenizer",
                   keras_hub_layout="segment_embedding")
ROBERTA = ModelFamily("roberta", ("roberta",), hf_prefix="roberta", hf_class_prefix="Roberta",
                      tokenizer="byte_bpe", keras_hub_backbone="RobertaBackbone",
                      keras_hub_tokenizer="RobertaTokenizer", keras_hub_layout="token_and_position", **_ROBERTA)
XLM_ROBERTA = ModelFamily("xlm_roberta", ("xlm-roberta",), hf_prefix="roberta", hf_class_prefix="XLMRoberta",
                          tokenizer="sentencepiece", keras_hub_backbone="XLMRobertaBackbone",
                          keras_hub_tokenizer="XLMRobertaTokenizer", keras_hub_layout="token_and_position",
                          **_ROBERTA)

DEBERTA_V3 = ModelFamily("deberta_v3", **DEBERTA_V3_FIELDS)
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
