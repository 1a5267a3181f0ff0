"""BertConverter: a BERT-shaped family's Hugging Face folder as a table, weight name by weight name.

Every BERT-shaped family converts through the canonical names, Google's TF1 names, which `BertEncoder`
and the heads give their variables. A converter holds its family's Hugging Face names as rules, one a
weight or one a layer (`{i}` stands for a block's index), in the order keras-hub's converters list
`port_weight` lines; no rule renames part of a name. BERT's tables are the base: RoBERTa and XLM-R reuse
them under their prefix with their own heads, ELECTRA adds its projection, DistilBERT holds its own.
"""

import dataclasses
import functools
import re

from keras_bert.config import BertConfig


def dense(hf, canonical):
    """A Dense layer's two rules: PyTorch's `[out, in]` weight is the transposed kernel."""
    return ((f"{hf}.weight", f"{canonical}/kernel", True), (f"{hf}.bias", f"{canonical}/bias", False))


def norm(hf, canonical):
    """A LayerNorm's two rules."""
    return ((f"{hf}.weight", f"{canonical}/gamma", False), (f"{hf}.bias", f"{canonical}/beta", False))


EMBEDDINGS = (("embeddings.word_embeddings.weight", "bert/embeddings/word_embeddings", False),
              ("embeddings.token_type_embeddings.weight", "bert/embeddings/token_type_embeddings", False),
              ("embeddings.position_embeddings.weight", "bert/embeddings/position_embeddings", False),
              *norm("embeddings.LayerNorm", "bert/embeddings/LayerNorm"))
_LAYER = "bert/encoder/layer_{i}/"
LAYER = (*dense("encoder.layer.{i}.attention.self.query", _LAYER + "attention/self/query"),
         *dense("encoder.layer.{i}.attention.self.key", _LAYER + "attention/self/key"),
         *dense("encoder.layer.{i}.attention.self.value", _LAYER + "attention/self/value"),
         *dense("encoder.layer.{i}.attention.output.dense", _LAYER + "attention/output/dense"),
         *norm("encoder.layer.{i}.attention.output.LayerNorm", _LAYER + "attention/output/LayerNorm"),
         *dense("encoder.layer.{i}.intermediate.dense", _LAYER + "intermediate/dense"),
         *dense("encoder.layer.{i}.output.dense", _LAYER + "output/dense"),
         *norm("encoder.layer.{i}.output.LayerNorm", _LAYER + "output/LayerNorm"))
POOLER = dense("pooler.dense", "bert/pooler/dense")
PRETRAINING_HEADS = (*dense("cls.predictions.transform.dense", "cls/predictions/transform/dense"),
                     *norm("cls.predictions.transform.LayerNorm", "cls/predictions/transform/LayerNorm"),
                     ("cls.predictions.bias", "cls/predictions/output_bias", False),
                     ("cls.predictions.decoder.bias", "cls/predictions/output_bias", False),  # read: a copy
                     ("cls.seq_relationship.weight", "cls/seq_relationship/output_weights", False),
                     ("cls.seq_relationship.bias", "cls/seq_relationship/output_bias", False))
# A sequence head whose `classifier.dense` (+ its activation) is BERT's pooler and `out_proj` its classifier
# (RoBERTa's, ELECTRA's).
POOLER_CLASSIFIER = (*dense("classifier.dense", "bert/pooler/dense"),
                     ("classifier.out_proj.weight", "output_weights", False),
                     ("classifier.out_proj.bias", "output_bias", False))


@functools.lru_cache(maxsize=None)
def _pattern(template):
    return re.compile(re.escape(template).replace(r"\{i\}", r"(\d+)") + "$")


def match_name(name, rules, source=0):
    """The rule whose `source` side (0: Hugging Face, 1: canonical) matches `name`: (other side, transposed)."""
    for rule in rules:
        found = _pattern(rule[source]).match(name)
        if found:
            other = rule[1 - source]
            return (other.replace("{i}", found.group(1)) if found.groups() else other), rule[2]
    return None


@dataclasses.dataclass(frozen=True)
class BertConverter:
    """A BERT-shaped family's Hugging Face checkpoint: class names, config.json and weight names.

    Args:
        prefix: the base model's prefix in its head classes' files (`bert`, `roberta`).
        class_prefix: the HF class names' stem (`Roberta` -> `RobertaForSequenceClassification`).
        pretraining_suffix: the HF class of its pretrainer after the stem (`ForPreTraining`, `ForMaskedLM`).
        base: rules for the base model's weights, under `prefix` (embeddings, `{i}` blocks, pooler).
        heads: rules for the pretraining heads' weights, outside `prefix`.
        head_names: HF class suffix (`ForSequenceClassification`) -> rules tried first in that class's file.
        tied_decoder: the HF name of the masked-LM decoder tied to the word embeddings (read to check, never written).
        unsupported: HF class suffixes of heads keras_bert does not hold (their encoder still loads).
        base_pooler: whether its base model holds what keras_bert's pooler reads (ELECTRA's has none).
        pooler_prefix: the canonical prefix of the pooler's weights.
        config_keys: BERT's config.json key -> this family's (DistilBERT's `dim` for `hidden_size`).
        config_fields: `BertConfig` fields every config.json of this family decides (ELECTRA's GELU pooler).
        embedding_size: whether its config.json has `embedding_size` (ELECTRA's `embeddings_project`).

    Example:
        >>> BertConverter().canonical_name("bert.pooler.dense.weight")
        ('bert/pooler/dense/kernel', True)
    """

    prefix: str = "bert"
    class_prefix: str = "Bert"
    pretraining_suffix: str = "ForPreTraining"
    base: tuple = EMBEDDINGS + LAYER + POOLER
    heads: tuple = PRETRAINING_HEADS
    head_names: dict = dataclasses.field(default_factory=dict)
    tied_decoder: str = "cls.predictions.decoder.weight"
    unsupported: tuple = ()
    base_pooler: bool = True
    pooler_prefix: str = "bert/pooler/"
    config_keys: dict = dataclasses.field(default_factory=dict)
    config_fields: dict = dataclasses.field(default_factory=dict)
    embedding_size: bool = False
    config_class = BertConfig

    def _rules(self, suffix, task_heads):
        base = tuple((f"{self.prefix}.{hf}", canonical, transposed) for hf, canonical, transposed in self.base)
        return tuple(self.head_names.get(suffix, ())) + base + self.heads + tuple(task_heads)

    def canonical_name(self, hf_name, suffix=None, task_heads=()):
        """(canonical name, transposed) of the HF weight `hf_name` in a `...suffix` class's file (with or
        without the base prefix; old `LayerNorm.gamma`/`.beta` names too), or None for a name it does not
        hold; `task_heads`: the task heads' rules (as the head classes declare their names), tried last."""
        name = re.sub(r"(LayerNorm\.)gamma$", r"\1weight", re.sub(r"(LayerNorm\.)beta$", r"\1bias", hf_name))
        rules = self._rules(suffix, task_heads)
        return match_name(name, rules) or match_name(f"{self.prefix}.{name}", rules)

    def hf_name(self, canonical, suffix=None, task_heads=()):
        """(HF name, transposed) of a canonical name as the `...suffix` class saves it; None: not in its file."""
        return match_name(canonical, self._rules(suffix, task_heads), source=1)

    def read_config(self, raw, source):
        """The config of a config.json dict of this family (without its family name)."""
        raw = dict(raw, **{bert: raw[ours] for bert, ours in self.config_keys.items() if ours in raw})
        config = self.config_class.from_huggingface_dict(raw, source)
        fields = self.config_fields_of(raw)
        if self.embedding_size and raw.get("embedding_size", config.hidden_size) != config.hidden_size:
            fields["embedding_size"] = raw["embedding_size"]  # equal: None, no projection (as HF builds none)
        return config.replace(**fields)

    def config_fields_of(self, raw):  # pylint: disable=unused-argument
        """The `BertConfig` fields a config.json dict of this family decides beyond BERT's (`config_fields`;
        RoBERTa's `pad_token_id`: its position offset)."""
        return dict(self.config_fields)

    def write_config(self, config):
        """config.json's entries for `config` (without `model_type` and `architectures`)."""
        extra = {}
        if self.embedding_size:
            extra["embedding_size"] = config.embedding_width
        elif getattr(config, "embedding_size", None) not in (None, config.hidden_size):
            raise ValueError(f"This model has embedding_size={config.embedding_size} != hidden_size="
                             f"{config.hidden_size}, which Hugging Face's {self.class_prefix} classes do not hold; "
                             "save it as 'keras'.")
        values = {self.config_keys.get(key, key): value for key, value in config.to_huggingface_dict().items()}
        return dict(values, **extra)

    def read_weights(self, weights, config):  # pylint: disable=unused-argument
        """The canonical weights of a folder's (what the family's files leave out, added)."""
        return weights

    def write_weights(self, weights, config):  # pylint: disable=unused-argument
        """The canonical weights as the family's files hold them (before naming)."""
        return weights

    def architecture(self, suffix):
        """This family's HF class name for a BERT class name's suffix (`ForMaskedLM`, `Model`); one line
        for a head this family's classes hold otherwise."""
        if suffix in self.unsupported:
            raise ValueError(f"keras_bert does not hold {self.class_prefix}{suffix} (its head differs from "
                             f"Bert{suffix}'s); save the model with model.save('model.keras').")
        return self.class_prefix + suffix

    def architecture_suffix(self, architecture):
        """`BertForX`'s `ForX` for one of this family's HF class names, else None."""
        stem = self.class_prefix
        return architecture.removeprefix(stem) if architecture.startswith(stem) else None
