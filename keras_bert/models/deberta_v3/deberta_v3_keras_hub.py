"""DEBERTA_V3_PRESET: keras-hub's `DebertaV3Backbone` layout (`ModelFamily.keras_hub`), its layers by canonical name.

keras-hub's backbone is DeBERTa-v3's shape only (relative attention in log buckets, shared keys, c2p + p2c, no
token types or absolute positions, exact GELU, LayerNorm epsilon 1e-7) and has no pooler; its attention
kernels are per head (`[hidden, heads, head_size]`), reshaped as BERT's.
"""

from keras_bert.models.deberta_v3.deberta_v3_config import DebertaV3Config
from keras_bert.models.keras_hub_layouts import KerasHubLayout, warn_no_pooler

# One block's layers: (keras-hub's sub-layer path, the canonical part), one rule a layer.
KERAS_HUB_BLOCK_PARTS = (("self_attention_layer/query", "attention/self/query_proj"),
                         ("self_attention_layer/key", "attention/self/key_proj"),
                         ("self_attention_layer/value", "attention/self/value_proj"),
                         ("self_attention_layer/attention_output", "attention/output/dense"),
                         ("self_attention_layer_norm", "attention/output/LayerNorm"),
                         ("feedforward_intermediate_dense", "intermediate/dense"),
                         ("feedforward_output_dense", "output/dense"),
                         ("feedforward_layer_norm", "output/LayerNorm"))


def keras_hub_variables(backbone):
    """`[(canonical name, keras-hub variable)]` of a `keras_hub.models.DebertaV3Backbone`."""
    by_path = {variable.path: variable for variable in backbone.weights}
    entries = [("bert/embeddings/word_embeddings", "token_embedding/embeddings"),
               ("bert/embeddings/LayerNorm/gamma", "embeddings_layer_norm/gamma"),
               ("bert/embeddings/LayerNorm/beta", "embeddings_layer_norm/beta"),
               ("bert/encoder/rel_embeddings", "rel_embedding/rel_embedding"),
               ("bert/encoder/LayerNorm/gamma", "rel_embedding/rel_embeddings_layer_norm/gamma"),
               ("bert/encoder/LayerNorm/beta", "rel_embedding/rel_embeddings_layer_norm/beta")]
    for index in range(backbone.num_layers):
        for ours, canonical in KERAS_HUB_BLOCK_PARTS:
            leaves = ("gamma", "beta") if canonical.endswith("LayerNorm") else ("kernel", "bias")
            entries += [(f"bert/encoder/layer_{index}/{canonical}/{leaf}",
                         f"disentangled_attention_encoder_layer_{index}/{ours}/{leaf}") for leaf in leaves]
    return [(name, by_path[path]) for name, path in entries]


def _kwargs(config):
    return dict(vocabulary_size=config.vocab_size, num_layers=config.num_layers, num_heads=config.num_heads,
                hidden_dim=config.hidden_size, intermediate_dim=config.intermediate_size,
                dropout=config.dropout_rate, max_sequence_length=config.max_position_embeddings,
                bucket_size=config.position_buckets)


def _config(backbone, family, source):  # pylint: disable=unused-argument
    return DebertaV3Config(
        vocab_size=backbone.vocabulary_size, hidden_size=backbone.hidden_dim, num_layers=backbone.num_layers,
        num_heads=backbone.num_heads, intermediate_size=backbone.intermediate_dim, dropout_rate=backbone.dropout,
        attention_dropout_rate=backbone.dropout, max_position_embeddings=backbone.max_sequence_length,
        position_buckets=backbone.bucket_size)


def _check(config, source):
    """One line naming the first setting keras-hub's DebertaV3Backbone (v3's shape only) cannot hold."""
    v3 = DebertaV3Config(vocab_size=1, hidden_size=config.hidden_size, num_layers=1, num_heads=config.num_heads)
    for name in ("relative_attention", "max_distance", "pos_att_type", "share_att_key", "norm_rel_ebd",
                 "position_biased_input", "type_vocab_size", "hidden_act"):
        expected = config.max_position_embeddings if name == "max_distance" else getattr(v3, name)
        if getattr(config, name) != expected or (name == "relative_attention" and config.position_buckets <= 0):
            raise ValueError(f"{source} has {name}={getattr(config, name)!r} (position_buckets="
                             f"{config.position_buckets}); keras-hub's DebertaV3Backbone holds DeBERTa-v3's "
                             f"{name}={expected!r} only. Save it as 'huggingface' or 'keras'.")


def _write(weights, config, source):  # pylint: disable=unused-argument
    warn_no_pooler(weights, source, "DebertaV3Backbone")
    return weights


DEBERTA_V3_PRESET = KerasHubLayout("DebertaV3Backbone", "DebertaV3Tokenizer", keras_hub_variables, _kwargs, _config,
                                   _check, 1e-7, "gelu", from_canonical=_write)
