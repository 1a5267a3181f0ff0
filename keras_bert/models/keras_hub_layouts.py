"""keras-hub presets of the BERT-shaped families: where each canonical (Google) weight sits in a backbone.

A family with a keras-hub preset names its `KerasHubLayout` (`ModelFamily.keras_hub`): the backbone and
tokenizer classes, one line per weight (the blocks: one rule a layer), the config both ways. Two layouts:

- `BERT_PRESET` (`BertBackbone`): token, segment and position embeddings, a pooler; tanh GELU,
  LayerNorm epsilon 1e-12.
- `ROBERTA_PRESET`, `XLM_ROBERTA_PRESET` (`RobertaBackbone`, `XLMRobertaBackbone`): token and position embeddings only, the
  positions from row 0 (Hugging Face's start after `padding_idx + 1`), no pooler; exact GELU, epsilon 1e-5.
  The one token type row a Hugging Face RoBERTa adds to every token is folded into the position rows on
  writing (exact, up to float32 rounding) and reads back as a zero row.
"""

import dataclasses
import warnings

import numpy as np

from keras_bert.config import BertConfig
from keras_bert.models.bert_encoder import block_variables

POSITIONS, TOKEN_TYPES = "bert/embeddings/position_embeddings", "bert/embeddings/token_type_embeddings"
_POOLER = "bert/pooler/"


def _block_entries(backbone):
    """(Google name, variable) of every transformer block of a keras-hub encoder backbone."""
    entries = []
    for index in range(backbone.num_layers):
        block = backbone.get_layer(f"transformer_layer_{index}")
        attention = block._self_attention_layer  # pylint: disable=protected-access
        entries += block_variables(f"bert/encoder/layer_{index}", (  # pylint: disable=protected-access
            attention.query_dense, attention.key_dense, attention.value_dense, attention.output_dense,
            block._self_attention_layer_norm, block._feedforward_intermediate_dense,
            block._feedforward_output_dense, block._feedforward_layer_norm))
    return [(name, variable) for name, variable, _ in entries]


def _bert_variables(backbone):
    """List of (Google name, keras-hub variable) for a `keras_hub.models.BertBackbone`."""
    layer = backbone.get_layer
    norm, pooler = layer("embeddings_layer_norm"), layer("pooled_dense")
    return [("bert/embeddings/word_embeddings", layer("token_embedding").embeddings),
            (TOKEN_TYPES, layer("segment_embedding").embeddings),
            (POSITIONS, layer("position_embedding").position_embeddings),
            ("bert/embeddings/LayerNorm/gamma", norm.gamma), ("bert/embeddings/LayerNorm/beta", norm.beta),
            *_block_entries(backbone),
            ("bert/pooler/dense/kernel", pooler.kernel), ("bert/pooler/dense/bias", pooler.bias)]


def _roberta_variables(backbone):
    """List of (Google name, keras-hub variable) for a `keras_hub.models.RobertaBackbone` (or XLM-R's)."""
    embeddings, norm = backbone.get_layer("embeddings"), backbone.get_layer("embeddings_layer_norm")
    return [("bert/embeddings/word_embeddings", embeddings.token_embedding.embeddings),
            (POSITIONS, embeddings.position_embedding.position_embeddings),
            ("bert/embeddings/LayerNorm/gamma", norm.gamma), ("bert/embeddings/LayerNorm/beta", norm.beta),
            *_block_entries(backbone)]


def _roberta_kwargs(config):
    return dict(vocabulary_size=config.vocab_size, num_layers=config.num_layers, num_heads=config.num_heads,
                hidden_dim=config.hidden_size, intermediate_dim=config.intermediate_size,
                dropout=config.dropout_rate, max_sequence_length=config.max_sequence_length)


def _bert_kwargs(config):
    return dict(_roberta_kwargs(config), max_sequence_length=config.max_position_embeddings,
                num_segments=config.type_vocab_size)


def _bert_config(backbone, family, source):  # pylint: disable=unused-argument
    return BertConfig(
        vocab_size=backbone.vocabulary_size, hidden_size=backbone.hidden_dim, num_layers=backbone.num_layers,
        num_heads=backbone.num_heads, intermediate_size=backbone.intermediate_dim, hidden_act="gelu_tanh",
        max_position_embeddings=backbone.max_sequence_length, type_vocab_size=backbone.num_segments,
        dropout_rate=backbone.dropout, attention_dropout_rate=backbone.dropout, layer_norm_eps=1e-12)


def _roberta_config(backbone, family, source):
    """The family's config (its record sets the position offset) with the backbone's position rows after it."""
    raw = dict(vocab_size=backbone.vocabulary_size, hidden_size=backbone.hidden_dim,
               num_hidden_layers=backbone.num_layers, num_attention_heads=backbone.num_heads,
               intermediate_size=backbone.intermediate_dim, hidden_act="gelu", layer_norm_eps=1e-5,
               max_position_embeddings=backbone.max_sequence_length, type_vocab_size=1,
               hidden_dropout_prob=backbone.dropout, attention_probs_dropout_prob=backbone.dropout)
    config = family.config_from_huggingface(raw, source)
    return config.replace(max_position_embeddings=backbone.max_sequence_length + config.position_offset)


def _roberta_read(weights, config):
    """Hugging Face's position table (the rows before the offset zero, as its padding row) and one zero token type."""
    positions = weights[POSITIONS]
    head = np.zeros((config.position_offset, positions.shape[1]), positions.dtype)
    return dict(weights, **{POSITIONS: np.concatenate([head, positions]),
                            TOKEN_TYPES: np.zeros((1, positions.shape[1]), positions.dtype)})


def warn_no_pooler(weights, source, backbone):
    """One warning where a model's pooler weights are dropped: `backbone` (keras-hub's class) has no pooler."""
    if _POOLER + "dense/kernel" in weights:
        warnings.warn(f"{source}: keras-hub's {backbone} has no pooler; its weights (pooled_output) are not "
                      "written. Save it as 'huggingface' or 'keras' to keep them.", UserWarning, stacklevel=5)


def _roberta_write(weights, config, source):
    """keras-hub's position rows: the model's from its offset on, plus its one token type row."""
    warn_no_pooler(weights, source, "RobertaBackbone")
    start = config.position_offset
    rows = weights[POSITIONS][start:start + config.max_sequence_length]
    return dict(weights, **{POSITIONS: rows + weights[TOKEN_TYPES][0]})


def _bert_check(config, source):
    if config.position_offset:  # RoBERTa-style positions: BertBackbone starts at row 0
        raise ValueError(f"{source} is a {config.family!r} model (positions start at row {config.position_offset}); "
                         "keras-hub's BertBackbone cannot hold it. Save it as 'huggingface' or 'keras'.")
    if config.hidden_act == "relu":
        raise ValueError(f"{source} uses hidden_act='relu'; keras-hub's BertBackbone always computes "
                         "the tanh GELU, so it cannot hold this model. Save it as 'huggingface' or 'keras'.")


def _roberta_check(config, source):
    if config.hidden_act != "gelu":
        raise ValueError(f"{source} uses hidden_act={config.hidden_act!r}; keras-hub's RobertaBackbone always "
                         "computes the exact GELU, so it cannot hold this model. Save it as 'huggingface' or 'keras'.")
    if config.type_vocab_size != 1:
        raise ValueError(f"{source} has type_vocab_size={config.type_vocab_size}; keras-hub's RobertaBackbone has "
                         "no token types (one at most can be folded in). Save it as 'huggingface' or 'keras'.")


@dataclasses.dataclass(frozen=True)
class KerasHubLayout:
    """One keras-hub backbone layout.

    Args:
        backbone, tokenizer: keras-hub's class names (`BertBackbone`, `BertTokenizer`).
        variables: backbone -> [(Google name, variable)] (attention kernels per head; `google_shape` flattens).
        backbone_kwargs: config -> the backbone class's constructor arguments.
        config: (backbone, family, config file) -> the model's config.
        check: (config, source) -> None; one line for a model this backbone cannot hold.
        layer_norm_eps, hidden_act: what the backbone fixes (a model with another epsilon is written with a warning).
        to_canonical, from_canonical: `(weights, config)` -> the canonical weights, `(weights, config, source)` ->
            this layout's (position rows, token types); default: the same weights.
        sizes: config.json key -> the model.weights.h5 path whose shape gives it (`(path, axis)`).
    """

    backbone: str
    tokenizer: str
    variables: object
    backbone_kwargs: object
    config: object
    check: object
    layer_norm_eps: float
    hidden_act: str
    to_canonical: object = lambda weights, config: weights
    from_canonical: object = lambda weights, config, source: weights
    sizes: dict = dataclasses.field(default_factory=dict)


_EMBEDDING = "layers/token_and_position_embedding/"
BERT_PRESET = KerasHubLayout(
    "BertBackbone", "BertTokenizer", _bert_variables, _bert_kwargs, _bert_config, _bert_check, 1e-12, "gelu_tanh",
    sizes={"vocabulary_size": ("layers/reversible_embedding/vars/0", 0),
           "hidden_dim": ("layers/reversible_embedding/vars/0", 1),
           "max_sequence_length": ("layers/position_embedding/vars/0", 0),
           "num_segments": ("layers/embedding/vars/0", 0)})
ROBERTA_PRESET = KerasHubLayout(
    "RobertaBackbone", "RobertaTokenizer", _roberta_variables, _roberta_kwargs, _roberta_config, _roberta_check,
    1e-5, "gelu", to_canonical=_roberta_read, from_canonical=_roberta_write,
    sizes={"vocabulary_size": (_EMBEDDING + "token_embedding/vars/0", 0),
           "hidden_dim": (_EMBEDDING + "token_embedding/vars/0", 1),
           "max_sequence_length": (_EMBEDDING + "position_embedding/vars/0", 0)})
XLM_ROBERTA_PRESET = dataclasses.replace(ROBERTA_PRESET, backbone="XLMRobertaBackbone",
                                         tokenizer="XLMRobertaTokenizer")
