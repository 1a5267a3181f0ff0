"""ModernBertConfig: the hyper-parameters of one ModernBERT encoder (and Ettin, mmBERT), HF's names mapped."""

import dataclasses

from keras_bert.config import ACTIVATIONS, FrozenConfig
from keras_bert.config import HF_ACTIVATIONS as _HF_ACTIVATIONS  # HF names -> ours, as BERT's
_TO_HF_ACTIVATIONS = {"gelu": "gelu", "gelu_tanh": "gelu_pytorch_tanh", "relu": "relu"}
POOLINGS = ("cls", "mean")
MODEL_TYPES = ("modernbert",)


@dataclasses.dataclass(frozen=True)
class ModernBertConfig(FrozenConfig):
    """Hyper-parameters of a ModernBERT encoder; field names are the builder's (HF's where it has one).

    Args:
        vocab_size: rows of the token-embedding matrix.
        hidden_size: width of every hidden state.
        num_layers: blocks (`num_hidden_layers`).
        num_heads: attention heads (`num_attention_heads`); must divide hidden_size.
        intermediate_size: width of each GeGLU half (`Wi` has twice as many outputs).
        hidden_act: the GeGLU activation (`hidden_activation`): "gelu", "gelu_tanh" or "relu".
        max_position_embeddings: longest sequence the model was trained for (8,192).
        global_attn_every_n_layers: layer i is global where i % n == 0, local (sliding window) else.
        local_attention: the window's full width; a token sees those <= local_attention // 2 away.
        global_rope_theta: rotary base on global layers.
        local_rope_theta: rotary base on local layers.
        norm_eps: LayerNorm epsilon.
        norm_bias, attention_bias, mlp_bias: LayerNorms / attention / MLP with biases.
        embedding_dropout, attention_dropout, mlp_dropout: dropout rates (0 in ModernBERT).
        classifier_pooling: "cls" or "mean": how `pooled_output` pools the sequence.
        classifier_activation: the prediction head's activation.
        classifier_bias: the prediction head's dense layer with a bias.
        decoder_bias: the masked-LM decoder with a per-token bias.
        initializer_range: stddev of the truncated-normal initializer.
        pad_token_id: the padding token's id.

    Example:
        >>> ModernBertConfig(vocab_size=100, hidden_size=64, num_layers=3, num_heads=4).layer_types
        ('global', 'local', 'local')
    """

    vocab_size: int = 50368
    hidden_size: int = 768
    num_layers: int = 22
    num_heads: int = 12
    intermediate_size: int = 1152
    hidden_act: str = "gelu"
    max_position_embeddings: int = 8192
    global_attn_every_n_layers: int = 3
    local_attention: int = 128
    global_rope_theta: float = 160000.0
    local_rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    norm_bias: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    embedding_dropout: float = 0.0
    attention_dropout: float = 0.0
    mlp_dropout: float = 0.0
    classifier_pooling: str = "cls"
    classifier_activation: str = "gelu"
    classifier_bias: bool = False
    decoder_bias: bool = True
    initializer_range: float = 0.02
    pad_token_id: int = 50283

    def __post_init__(self):
        self.check_positive_integers(("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size",
                                      "max_position_embeddings", "global_attn_every_n_layers"))
        if self.hidden_size % self.num_heads:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be divisible by num_heads ({self.num_heads}).")
        if not isinstance(self.local_attention, int) or self.local_attention < 2:
            raise ValueError(f"ModernBertConfig.local_attention must be an integer >= 2, got {self.local_attention!r}.")
        for name in ("hidden_act", "classifier_activation"):
            if getattr(self, name) not in ACTIVATIONS:
                raise ValueError(f"ModernBertConfig.{name} must be one of {ACTIVATIONS}, got {getattr(self, name)!r}.")
        if self.classifier_pooling not in POOLINGS:
            raise ValueError(f"ModernBertConfig.classifier_pooling must be one of {POOLINGS}, "
                             f"got {self.classifier_pooling!r}.")
        self.check_rates(("embedding_dropout", "attention_dropout", "mlp_dropout"))
        self.check_positive_numbers(("norm_eps", "initializer_range"))

    @property
    def head_size(self):
        return self.hidden_size // self.num_heads

    @property
    def max_sequence_length(self):
        """The longest input: every position (rotary, no offset), as `BertConfig.max_sequence_length`."""
        return self.max_position_embeddings

    @property
    def half_window(self):
        """How far a local layer's token sees: local_attention // 2 (64 in ModernBERT)."""
        return self.local_attention // 2

    @property
    def layer_types(self):
        """Per layer "global" (full attention, global_rope_theta) or "local" (window, local_rope_theta)."""
        return tuple("local" if i % self.global_attn_every_n_layers else "global" for i in range(self.num_layers))

    @classmethod
    def from_bert_shape(cls, config, pad_token_id):
        """A ModernBERT of a `BertConfig`'s shape (a preset's: hidden size, layers, heads, intermediate size,
        longest input, vocab size, activation) to pretrain from scratch; the rest ModernBERT's defaults (global
        attention every third layer, a 128-token window: shorter sequences see all of it, no dropout)."""
        return cls(vocab_size=config.vocab_size, hidden_size=config.hidden_size, num_layers=config.num_layers,
                   num_heads=config.num_heads, intermediate_size=config.intermediate_size,
                   max_position_embeddings=config.max_position_embeddings - config.position_offset,
                   hidden_act=config.hidden_act,
                   pad_token_id=int(pad_token_id))

    @classmethod
    def from_huggingface_dict(cls, raw, source="config.json"):
        """Maps a Hugging Face ModernBERT `config.json` dict (transformers 4.x or 5.x) onto this config."""
        if raw.get("model_type", "modernbert") not in MODEL_TYPES:
            raise ValueError(f"{source}: model_type {raw.get('model_type')!r} is not ModernBERT; "
                             f"expected one of {MODEL_TYPES}.")
        act, head_act = raw.get("hidden_activation", "gelu"), raw.get("classifier_activation", "gelu")
        for name, value in (("hidden_activation", act), ("classifier_activation", head_act)):
            if value not in _HF_ACTIVATIONS:
                raise ValueError(f"{source}: {name} {value!r} is not supported; expected one of "
                                 f"{sorted(_HF_ACTIVATIONS)}.")
        rope = raw.get("rope_parameters") or {}
        for kind, params in rope.items():
            if (params or {}).get("rope_type", "default") != "default":
                raise ValueError(f"{source}: rope_parameters[{kind!r}] has rope_type {params['rope_type']!r}; "
                                 "only the default rotary embedding is supported.")
        try:
            values = dict(
                vocab_size=raw["vocab_size"], hidden_size=raw["hidden_size"],
                num_layers=raw["num_hidden_layers"], num_heads=raw["num_attention_heads"],
                intermediate_size=raw["intermediate_size"], hidden_act=_HF_ACTIVATIONS[act])
        except KeyError as e:
            raise ValueError(f"{source} lacks the ModernBERT config field {e.args[0]!r}.") from None
        every = _global_every(raw, values["num_layers"], source)
        defaults = cls()
        kinds = (("global_rope_theta", "full_attention"), ("local_rope_theta", "sliding_attention"))
        thetas = {name: (rope.get(kind) or {}).get("rope_theta", raw.get(name, getattr(defaults, name)))
                  for name, kind in kinds}
        for name, theta in thetas.items():
            if isinstance(theta, bool) or not isinstance(theta, (int, float)) or not theta > 0:
                raise ValueError(f"{source}: {name} (rope_theta) is {theta!r}; expected a positive number "
                                 "(ModernBERT: 160000.0 global, 10000.0 local).")
        try:
            return cls(
                **values, global_attn_every_n_layers=every,
                max_position_embeddings=raw.get("max_position_embeddings", defaults.max_position_embeddings),
                local_attention=raw.get("local_attention", defaults.local_attention),
                **{name: float(theta) for name, theta in thetas.items()},
                classifier_activation=_HF_ACTIVATIONS[head_act],
                pad_token_id=raw.get("pad_token_id") if raw.get("pad_token_id") is not None else defaults.pad_token_id,
                **{name: raw.get(name, getattr(defaults, name)) for name in (
                    "norm_eps", "norm_bias", "attention_bias", "mlp_bias", "embedding_dropout", "attention_dropout",
                    "mlp_dropout", "classifier_pooling", "classifier_bias", "decoder_bias", "initializer_range")})
        except (TypeError, ValueError) as error:  # a field of the wrong type: name the file
            raise ValueError(f"{source}: {error}") from None

    def to_huggingface_dict(self):
        """A `config.json` dict that transformers' `ModernBertConfig` reads back to this model."""
        return {
            "architectures": ["ModernBertForMaskedLM"], "model_type": "modernbert",
            "vocab_size": self.vocab_size, "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_layers, "num_attention_heads": self.num_heads,
            "intermediate_size": self.intermediate_size, "hidden_activation": _TO_HF_ACTIVATIONS[self.hidden_act],
            "max_position_embeddings": self.max_position_embeddings,
            "global_attn_every_n_layers": self.global_attn_every_n_layers,
            "layer_types": ["sliding_attention" if t == "local" else "full_attention" for t in self.layer_types],
            "local_attention": self.local_attention,
            "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": self.global_rope_theta},
                                "sliding_attention": {"rope_type": "default", "rope_theta": self.local_rope_theta}},
            "global_rope_theta": self.global_rope_theta, "local_rope_theta": self.local_rope_theta,
            "classifier_activation": _TO_HF_ACTIVATIONS[self.classifier_activation],
            **{name: getattr(self, name) for name in (
                "norm_eps", "norm_bias", "attention_bias", "mlp_bias", "embedding_dropout", "attention_dropout",
                "mlp_dropout", "classifier_pooling", "classifier_bias", "decoder_bias", "initializer_range",
                "pad_token_id")},
            "tie_word_embeddings": True,
        }


def _global_every(raw, num_layers, source):
    """`global_attn_every_n_layers` from a 4.x config, or the period of a 5.x `layer_types` list."""
    types = raw.get("layer_types")
    if not types:
        return raw.get("global_attn_every_n_layers", 3)
    for every in range(1, num_layers + 1):
        if list(types) == ["sliding_attention" if i % every else "full_attention" for i in range(num_layers)]:
            return every
    raise ValueError(f"{source}: layer_types {types} is not 'full_attention every n-th layer from 0, "
                     "sliding_attention between'; only that ModernBERT pattern is supported.")
