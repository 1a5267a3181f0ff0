"""DebertaV3Config: the hyper-parameters of one DeBERTa-v3 encoder (`DebertaV2Model`), HF's names mapped."""

import dataclasses

from keras_bert.config import ACTIVATIONS, FrozenConfig
from keras_bert.config import HF_ACTIVATIONS as _HF_ACTIVATIONS  # HF names -> ours, as BERT's

MODEL_TYPES = ("deberta-v2",)
POSITION_ATTENTIONS = ("c2p", "p2c")
_TO_HF_ACTIVATIONS = {"gelu": "gelu", "gelu_tanh": "gelu_new", "relu": "relu"}
# Our field -> its name in Hugging Face's config.json, where they differ.
_HF_NAMES = {"num_layers": "num_hidden_layers", "num_heads": "num_attention_heads",
             "dropout_rate": "hidden_dropout_prob", "attention_dropout_rate": "attention_probs_dropout_prob",
             "pooler_activation": "pooler_hidden_act"}
_PLAIN = ("vocab_size", "hidden_size", "intermediate_size", "max_position_embeddings", "type_vocab_size",
          "initializer_range", "layer_norm_eps", "relative_attention", "max_relative_positions", "position_buckets",
          "share_att_key", "position_biased_input", "pad_token_id")


@dataclasses.dataclass(frozen=True)
class DebertaV3Config(FrozenConfig):
    """Hyper-parameters of a DeBERTa-v3 encoder; BERT's field names, HF's for what BERT lacks.

    Args:
        vocab_size, hidden_size, num_layers, num_heads, intermediate_size, hidden_act: as `BertConfig`'s.
        dropout_rate, attention_dropout_rate: hidden and attention-probability dropout.
        max_position_embeddings: longest input (and, with max_relative_positions < 1, the relative span).
        type_vocab_size: token type rows (0 in DeBERTa-v3: no token type embeddings).
        initializer_range, layer_norm_eps: as `BertConfig`'s (DeBERTa: 1e-7).
        relative_attention: disentangled attention with relative position embeddings.
        max_relative_positions: the relative span (< 1: max_position_embeddings).
        position_buckets: log buckets of relative positions (256 in v3; <= 0: none, the span is exact).
        pos_att_type: the position terms, a tuple of "c2p" (content to position) and "p2c".
        share_att_key: the position terms reuse the content query/key projections (v3) instead of their own.
        norm_rel_ebd: "layer_norm": the shared relative embeddings pass a LayerNorm; "none": they do not.
        position_biased_input: absolute position embeddings added to the input (False in v3).
        pooler_activation: the activation of `ContextPooler` (`pooler_hidden_act`), the sequence heads' pooler.
        pad_token_id: the padding token's id.

    Example:
        >>> DebertaV3Config(vocab_size=100, hidden_size=32, num_layers=2, num_heads=2).relative_span
        256
    """

    vocab_size: int = 128100
    hidden_size: int = 768
    num_layers: int = 12
    num_heads: int = 12
    intermediate_size: int = 3072
    hidden_act: str = "gelu"
    dropout_rate: float = 0.1
    attention_dropout_rate: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 0
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-7
    relative_attention: bool = True
    max_relative_positions: int = -1
    position_buckets: int = 256
    pos_att_type: tuple = ("p2c", "c2p")
    share_att_key: bool = True
    norm_rel_ebd: str = "layer_norm"
    position_biased_input: bool = False
    pooler_activation: str = "gelu"
    pad_token_id: int = 0

    def __post_init__(self):
        object.__setattr__(self, "pos_att_type", tuple(self.pos_att_type or ()))
        self.check_positive_integers(("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size",
                                      "max_position_embeddings"))
        if self.hidden_size % self.num_heads:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be divisible by num_heads ({self.num_heads}).")
        for name in ("hidden_act", "pooler_activation"):
            if getattr(self, name) not in ACTIVATIONS:
                raise ValueError(f"DebertaV3Config.{name} must be one of {ACTIVATIONS}, got {getattr(self, name)!r}.")
        unknown = [kind for kind in self.pos_att_type if kind not in POSITION_ATTENTIONS]
        if unknown:
            raise ValueError(f"DebertaV3Config.pos_att_type holds {unknown}; expected terms of {POSITION_ATTENTIONS}.")
        if self.norm_rel_ebd not in ("layer_norm", "none"):
            raise ValueError(f"DebertaV3Config.norm_rel_ebd must be 'layer_norm' or 'none', got {self.norm_rel_ebd!r}.")
        if not isinstance(self.type_vocab_size, int) or self.type_vocab_size < 0:
            raise ValueError(f"DebertaV3Config.type_vocab_size must be an integer >= 0, got {self.type_vocab_size!r}.")
        self.check_rates(("dropout_rate", "attention_dropout_rate"))
        self.check_positive_numbers(("layer_norm_eps", "initializer_range"))

    @property
    def head_size(self):
        return self.hidden_size // self.num_heads

    @property
    def max_sequence_length(self):
        """The longest input, as `BertConfig.max_sequence_length`."""
        return self.max_position_embeddings

    @property
    def relative_span(self):
        """k: relative positions (bucketed where position_buckets > 0) are clipped to [-k, k); the shared
        relative embedding table has 2k rows."""
        if self.position_buckets > 0:
            return self.position_buckets
        return self.max_relative_positions if self.max_relative_positions >= 1 else self.max_position_embeddings

    @property
    def max_distance(self):
        """The largest relative distance the log buckets are scaled to (HF's `max_relative_positions`)."""
        return self.max_relative_positions if self.max_relative_positions >= 1 else self.max_position_embeddings

    # What shared code reads from every family's config (`BertConfig`'s names).
    embedding_size = None
    position_offset = 0

    @property
    def embedding_width(self):
        return self.hidden_size

    @classmethod
    def from_huggingface_dict(cls, raw, source="config.json"):
        """Maps a Hugging Face `DebertaV2Config` dict (model_type "deberta-v2") onto this config; one line
        naming the field for what keras_bert does not build (a conv layer, an embedding projection)."""
        if raw.get("model_type", "deberta-v2") not in MODEL_TYPES:
            raise ValueError(f"{source}: model_type {raw.get('model_type')!r} is not DeBERTa-v2/v3; "
                             f"expected one of {MODEL_TYPES}.")
        for name, unbuilt in (("conv_kernel_size", 0), ("embedding_size", raw.get("hidden_size"))):
            if raw.get(name, unbuilt) not in (unbuilt, None):
                raise ValueError(f"{source}: {name}={raw[name]!r}; keras_bert builds DeBERTa without it "
                                 f"({name} {unbuilt}), as DeBERTa-v3 is.")
        for name in ("hidden_act", "pooler_hidden_act"):
            if raw.get(name, "gelu") not in _HF_ACTIVATIONS:
                raise ValueError(f"{source}: {name} {raw[name]!r} is not supported; expected one of "
                                 f"{sorted(_HF_ACTIVATIONS)}.")
        pos_att_type = raw.get("pos_att_type") or ()
        if isinstance(pos_att_type, str):
            pos_att_type = [kind.strip() for kind in pos_att_type.lower().split("|")]
        norm = [kind.strip() for kind in str(raw.get("norm_rel_ebd", "none")).lower().split("|")]
        defaults = cls()
        try:
            values = {name: raw[_HF_NAMES.get(name, name)] for name in ("vocab_size", "hidden_size", "num_layers",
                                                                          "num_heads", "intermediate_size")}
        except KeyError as e:
            raise ValueError(f"{source} lacks the DeBERTa config field {e.args[0]!r}.") from None
        for name in ("dropout_rate", "attention_dropout_rate"):
            values[name] = raw.get(_HF_NAMES[name], 0.1)
        values.update({name: raw.get(name, getattr(defaults, name)) for name in _PLAIN if name not in values})
        values.update(relative_attention=raw.get("relative_attention", False),
                      position_buckets=raw.get("position_buckets", -1),
                      position_biased_input=raw.get("position_biased_input", True),
                      pad_token_id=raw.get("pad_token_id") if raw.get("pad_token_id") is not None else 0)
        try:
            return cls(**values, hidden_act=_HF_ACTIVATIONS[raw.get("hidden_act", "gelu")],
                       pooler_activation=_HF_ACTIVATIONS[raw.get("pooler_hidden_act", "gelu")],
                       pos_att_type=tuple(pos_att_type),
                       norm_rel_ebd="layer_norm" if "layer_norm" in norm else "none")
        except (TypeError, ValueError) as error:  # a field of the wrong type: name the file
            message = str(error)
            raise ValueError(message if source in message else f"{source}: {message}") from None

    def to_huggingface_dict(self):
        """A `config.json` dict that transformers' `DebertaV2Config` reads back to this model."""
        values = {_HF_NAMES.get(name, name): getattr(self, name) for name in _PLAIN + tuple(_HF_NAMES)}
        return dict(values, hidden_act=_TO_HF_ACTIVATIONS[self.hidden_act],
                    pooler_hidden_act=_TO_HF_ACTIVATIONS[self.pooler_activation],
                    pos_att_type=list(self.pos_att_type), norm_rel_ebd=self.norm_rel_ebd, legacy=True,
                    model_type=MODEL_TYPES[0])
