"""BertConfig: the hyper-parameters of one BERT, plus the paper's and Google's presets.

Imports nothing of keras_bert. Field names equal the builder and layer keyword
arguments (docs/DESIGN.md, rule 3).
"""

import dataclasses
import json
import os

# hidden_act values: "gelu" is the exact erf form (Hugging Face's meaning),
# "gelu_tanh" the tanh approximation (what Google's modeling.py computes and
# also calls "gelu"). Loaders map their source's meaning onto these names.
ACTIVATIONS = ("gelu", "gelu_tanh", "relu")

HF_ACTIVATIONS = {
    "gelu": "gelu",
    "gelu_python": "gelu",
    "gelu_new": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "relu": "relu",
}
_GOOGLE_ACTIVATIONS = {"gelu": "gelu_tanh", "relu": "relu"}
# Our field -> its name in Google's bert_config.json and Hugging Face's config.json; the first five are required.
_SOURCE_NAMES = {"vocab_size": "vocab_size", "hidden_size": "hidden_size", "num_layers": "num_hidden_layers",
                 "num_heads": "num_attention_heads", "intermediate_size": "intermediate_size",
                 "max_position_embeddings": "max_position_embeddings", "type_vocab_size": "type_vocab_size",
                 "dropout_rate": "hidden_dropout_prob", "attention_dropout_rate": "attention_probs_dropout_prob",
                 "initializer_range": "initializer_range"}
_REQUIRED = tuple(_SOURCE_NAMES)[:5]


def read_json(path, expected=""):
    """Parses the JSON file `path`; invalid JSON is one ValueError naming the file (and `expected`).

    Example:
        >>> read_json("bert_config.json", "a BERT config")["hidden_size"]  # doctest: +SKIP
        768
    """
    with open(path, encoding="utf-8-sig") as f:  # a leading BOM (Notepad) is dropped
        try:
            return json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not valid JSON ({e})"
                             + (f"; expected {expected}." if expected else ".")) from None


class FrozenConfig:
    """What every family's config (a frozen dataclass: `BertConfig`, `ModernBertConfig`) shares:
    copies with changes, a dict both ways, a JSON file, and the checks of counts and rates."""

    def replace(self, **changes):
        """Returns a copy with some fields changed (the dataclass is frozen)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self):
        return dataclasses.asdict(self)

    def to_json(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2, sort_keys=True)
            f.write("\n")

    @classmethod
    def from_dict(cls, values):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"Unknown {cls.__name__} fields {unknown}; expected a subset of {sorted(known)}.")
        return cls(**values)

    def check_positive_integers(self, names):
        """One ValueError naming the first field of `names` that is not a positive int."""
        for name in names:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{type(self).__name__}.{name} must be a positive integer, got {value!r}.")

    def check_positive_numbers(self, names):
        """One ValueError naming the first field of `names` that is not a positive number (an epsilon)."""
        for name in names:
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise ValueError(f"{type(self).__name__}.{name} must be a positive number, got {value!r}.")

    def check_rates(self, names):
        """One ValueError naming the first field of `names` (a dropout rate) outside [0, 1)."""
        for name in names:
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{type(self).__name__}.{name} must be in [0, 1), got {getattr(self, name)}.")


@dataclasses.dataclass(frozen=True)
class BertConfig(FrozenConfig):
    """Hyper-parameters of a BERT encoder.

    Args:
        vocab_size: rows of the word-embedding matrix.
        hidden_size: width of every hidden state (H).
        num_layers: transformer blocks (L).
        num_heads: attention heads (A); must divide hidden_size.
        intermediate_size: width of the feed-forward layer (4H in the paper).
        hidden_act: "gelu" (exact erf), "gelu_tanh" (approximation) or "relu".
        max_position_embeddings: longest sequence the model accepts.
        type_vocab_size: number of segment ids (2 for sentence pairs).
        dropout_rate: dropout after embeddings, attention output and FFN.
        attention_dropout_rate: dropout on the attention probabilities.
        initializer_range: stddev of the truncated-normal initializer.
        layer_norm_eps: LayerNorm epsilon (1e-12 in BERT).
        position_offset: the first position's row in the position table (0 in BERT; RoBERTa and
            XLM-R: `padding_idx + 1` = 2, positions `offset + arange(seq)`).
        pooler_activation: the pooler's activation: "tanh" (BERT) or one of `ACTIVATIONS` (ELECTRA's
            sequence head computes GELU on its first dense layer, which keras_bert holds as the pooler).
        family: the model family's name (`keras_bert.models.families.FAMILIES`: "bert", "roberta",
            ...); it says how checkpoints name the weights and which tokenizer kind the model uses.
        embedding_size: the embeddings' width (E) when it differs from hidden_size (ELECTRA-small: a Dense
            `embeddings_project` E -> H follows the embeddings); None: hidden_size, no projection.

    Example:
        >>> config = BertConfig.from_preset("bert_tiny_uncased")
        >>> config.hidden_size
        128
    """

    vocab_size: int = 30522
    hidden_size: int = 768
    num_layers: int = 12
    num_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-12
    position_offset: int = 0
    pooler_activation: str = "tanh"
    family: str = "bert"
    embedding_size: int | None = None

    def __post_init__(self):
        self.check_positive_integers(("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size") + ("embedding_size",) * (self.embedding_size is not None))
        if self.hidden_size % self.num_heads:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be divisible by num_heads ({self.num_heads}); "
                             f"e.g. hidden_size={self.num_heads * 64} or num_heads={max(1, self.hidden_size // 64)}.")
        if isinstance(self.position_offset, bool) or not isinstance(self.position_offset, int) or \
                not 0 <= self.position_offset < self.max_position_embeddings:
            raise ValueError(f"BertConfig.position_offset must be an integer in [0, max_position_embeddings="
                             f"{self.max_position_embeddings}), got {self.position_offset!r}.")
        if self.pooler_activation not in ("tanh",) + ACTIVATIONS:
            raise ValueError(f"pooler_activation must be one of {('tanh',) + ACTIVATIONS}, "
                             f"got {self.pooler_activation!r}.")
        if not isinstance(self.family, str) or not self.family:
            raise ValueError(f"BertConfig.family must be a family name such as 'bert', got {self.family!r}.")
        if self.hidden_act not in ACTIVATIONS:
            raise ValueError(f"hidden_act must be one of {ACTIVATIONS}, got {self.hidden_act!r}.")
        self.check_rates(("dropout_rate", "attention_dropout_rate"))
        self.check_positive_numbers(("initializer_range", "layer_norm_eps"))

    @property
    def head_size(self):
        return self.hidden_size // self.num_heads

    @property
    def embedding_width(self):
        """The embeddings' width: `embedding_size`, or hidden_size when that is None."""
        return self.embedding_size or self.hidden_size

    @property
    def max_sequence_length(self):
        """The longest input: the position rows after `position_offset`."""
        return self.max_position_embeddings - self.position_offset

    @classmethod
    def from_json(cls, path):
        """Reads Google's bert_config.json, Hugging Face's config.json or our own."""
        if os.path.isdir(path):
            for name in ("config.json", "bert_config.json", "keras_bert_config.json"):
                if os.path.exists(os.path.join(path, name)):
                    path = os.path.join(path, name)
                    break
            else:
                raise FileNotFoundError(f"No config.json or bert_config.json in {path}; a BERT checkpoint "
                                        "directory needs one of them next to the weights.")
        if not os.path.exists(path):
            raise FileNotFoundError(f"BERT config file not found: {path}")
        return cls.from_source_dict(read_json(path, "a BERT config"), source_path=path)

    @classmethod
    def from_source_dict(cls, values, source_path="<dict>"):
        """Maps a Google, Hugging Face or keras_bert config dict to BertConfig."""
        if "num_layers" in values:  # our own format
            return cls.from_dict(values)
        is_hf = "model_type" in values or "architectures" in values or "layer_norm_eps" in values
        try:
            act = values.get("hidden_act", "gelu")
            family = {k: values["keras_bert_" + k] for k in ("family", "position_offset", "pooler_activation",
                                                             "embedding_size") if "keras_bert_" + k in values}
            if "keras_bert_hidden_act" in values:
                act, table = values["keras_bert_hidden_act"], {a: a for a in ACTIVATIONS}
            else:
                table = HF_ACTIVATIONS if is_hf else _GOOGLE_ACTIVATIONS
            if act not in table:
                raise ValueError(f"{source_path}: hidden_act {act!r} is not supported; "
                                 f"expected one of {sorted(table)}.")
            fields = {ours: values[theirs] for ours, theirs in _SOURCE_NAMES.items()
                      if ours in _REQUIRED or theirs in values}  # the others: BertConfig's defaults
            return cls(**fields, hidden_act=table[act], **family,
                       layer_norm_eps=values.get("keras_bert_layer_norm_eps", values.get("layer_norm_eps", 1e-12)))
        except KeyError as e:
            raise ValueError(f"{source_path} lacks the BERT config field {e.args[0]!r}.") from None

    def to_google_dict(self):
        """Google's bert_config.json (its "gelu" means the tanh approximation)."""
        # Google's modeling.py knows only "gelu" (tanh) and "relu". An exact-erf
        # model is written as "gelu" plus our own key, which modeling.py ignores
        # and our loader prefers, so the activation survives a round trip.
        act = {"gelu": "gelu", "gelu_tanh": "gelu", "relu": "relu"}[self.hidden_act]
        return {
            **{theirs: getattr(self, ours) for ours, theirs in _SOURCE_NAMES.items()},
            "hidden_act": act,
            "keras_bert_hidden_act": self.hidden_act,
            # Another family (RoBERTa: positions after row 2, LayerNorm eps 1e-5) in Google's layout.
            **({"keras_bert_family": self.family, "keras_bert_position_offset": self.position_offset,
                "keras_bert_pooler_activation": self.pooler_activation,
                "keras_bert_layer_norm_eps": self.layer_norm_eps} if self.family != "bert" else {}),
            **({"keras_bert_embedding_size": self.embedding_size} if self.embedding_size is not None else {}),
        }

    # A Hugging Face config.json's dict -> BertConfig (the family's fields are set by its record).
    from_huggingface_dict = from_source_dict

    def to_huggingface_dict(self):
        """BERT's config.json fields (a family's record adds its own `model_type` and token ids)."""
        return {
            "architectures": ["BertForPreTraining"],
            "model_type": "bert",
            **{theirs: getattr(self, ours) for ours, theirs in _SOURCE_NAMES.items()},
            "hidden_act": {"gelu": "gelu", "gelu_tanh": "gelu_new", "relu": "relu"}[self.hidden_act],
            "layer_norm_eps": self.layer_norm_eps,
            "pad_token_id": 0,
            "position_embedding_type": "absolute",
        }

    @classmethod
    def from_preset(cls, name, **overrides):
        """A preset by name (see `PRESETS`), optionally with fields overridden."""
        if name not in PRESETS:
            close = [p for p in PRESETS if name.split("_")[0] in p][:5]
            raise ValueError(f"Unknown preset {name!r}. Known presets: {', '.join(sorted(PRESETS))}"
                             + (f". Did you mean one of {close}?" if close else "."))
        return PRESETS[name].replace(**overrides)


# Google's original checkpoints compute the tanh GELU; presets describe them.
_BASE = dict(hidden_act="gelu_tanh")

PRESETS = {
    # The paper's two sizes (Devlin et al. 2018): 110M and 340M parameters.
    "bert_base_uncased": BertConfig(**_BASE),
    "bert_base_cased": BertConfig(vocab_size=28996, **_BASE),
    "bert_large_uncased": BertConfig(hidden_size=1024, num_layers=24, num_heads=16,
                                     intermediate_size=4096, **_BASE),
    "bert_large_cased": BertConfig(vocab_size=28996, hidden_size=1024, num_layers=24,
                                   num_heads=16, intermediate_size=4096, **_BASE),
}

# Google's 24 small BERTs (Turc et al. 2019), uncased WordPiece vocab:
# L in {2..12}, H in {128, 256, 512, 768}, A = H / 64, intermediate = 4H.
_SMALL_NAMES = {(2, 128): "bert_tiny_uncased", (4, 256): "bert_mini_uncased",
                (4, 512): "bert_small_uncased", (8, 512): "bert_medium_uncased"}
for _layers in (2, 4, 6, 8, 10, 12):
    for _hidden in (128, 256, 512, 768):
        _config = BertConfig(hidden_size=_hidden, num_layers=_layers, num_heads=_hidden // 64,
                             intermediate_size=4 * _hidden, **_BASE)
        PRESETS[f"bert_uncased_L-{_layers}_H-{_hidden}_A-{_hidden // 64}"] = _config
        if (_layers, _hidden) in _SMALL_NAMES:
            PRESETS[_SMALL_NAMES[(_layers, _hidden)]] = _config
del _layers, _hidden, _config
