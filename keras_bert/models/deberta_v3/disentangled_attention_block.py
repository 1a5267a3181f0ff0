"""One DeBERTa layer: disentangled self-attention (content and relative-position terms), post-LayerNorm,
and BERT's feed-forward."""

import math

import keras
from keras import ops

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout
from keras_bert.models.deberta_v3.relative_embeddings import relative_positions

_MASKED = -3.4028234663852886e38  # float32's lowest: what HF fills masked scores with (a padded row: uniform)


@keras.saving.register_keras_serializable(package="keras_bert")
class DisentangledAttentionBlock(BertLayer):
    """HF's `DebertaV2Layer`: scores `q.k + c2p + p2c`, each over `sqrt(head_size * (1 + terms))`, where
    c2p reads the query against the keys of the relative embeddings at `i - j` and p2c the key against their
    queries at `j - i` (both clipped to [0, 2 * span)); softmax where both tokens are real; then the output
    projection, residual LayerNorm, GELU feed-forward, residual LayerNorm.

    Args:
        hidden_size, num_heads, intermediate_size, hidden_act: the layer's shape and activation.
        span, position_buckets, max_distance: the relative positions (`DebertaV3Config.relative_span`, ...).
        pos_att_type: the position terms ("c2p", "p2c"); () or `relative_attention=False`: content only.
        share_att_key: the position terms use query_proj / key_proj (v3); else pos_query_proj / pos_key_proj.
        relative_attention: whether the position terms are computed.
        dropout_rate, attention_dropout_rate, initializer_range, layer_norm_eps: as the encoder's.

    Example:
        >>> block = DisentangledAttentionBlock(16, 2, 32, span=4, position_buckets=4, max_distance=16)
        >>> x = keras.ops.ones((2, 5, 16))
        >>> block(x, keras.ops.ones((2, 5), "int32"), keras.ops.ones((8, 16))).shape
        (2, 5, 16)
    """

    def __init__(self, hidden_size, num_heads, intermediate_size, hidden_act="gelu", span=256, position_buckets=256,
                 max_distance=512, pos_att_type=("p2c", "c2p"), share_att_key=True, relative_attention=True,
                 dropout_rate=0.1, attention_dropout_rate=0.1, initializer_range=0.02, layer_norm_eps=1e-7,
                 **kwargs):
        super().__init__(**kwargs)
        pos_att_type = list(pos_att_type or ()) if relative_attention else []
        self.store_arguments(hidden_size=hidden_size, num_heads=num_heads, intermediate_size=intermediate_size,
                             hidden_act=hidden_act, span=span, position_buckets=position_buckets,
                             max_distance=max_distance, pos_att_type=pos_att_type, share_att_key=share_att_key,
                             relative_attention=relative_attention, dropout_rate=dropout_rate,
                             attention_dropout_rate=attention_dropout_rate, initializer_range=initializer_range,
                             layer_norm_eps=layer_norm_eps)
        self.head_size = hidden_size // num_heads
        self.scale = math.sqrt(self.head_size * (1 + len(pos_att_type)))

        def dense(units, name, activation=None):
            return keras.layers.Dense(units, activation=activation, dtype=self.dtype_policy, name=name,
                                      kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range))

        def layer_norm(name):
            return keras.layers.LayerNormalization(epsilon=layer_norm_eps, dtype=self.dtype_policy, name=name)

        self.query_proj, self.key_proj, self.value_proj = (dense(hidden_size, n) for n in (
            "query_proj", "key_proj", "value_proj"))
        own = not share_att_key
        self.pos_key_proj = dense(hidden_size, "pos_key_proj") if own and "c2p" in pos_att_type else None
        self.pos_query_proj = dense(hidden_size, "pos_query_proj") if own and "p2c" in pos_att_type else None
        self.attention_output = dense(hidden_size, "attention_output")
        self.attention_layer_norm = layer_norm("attention_layer_norm")
        self.intermediate = dense(intermediate_size, "intermediate", get_activation(hidden_act))
        self.output_dense = dense(hidden_size, "output_dense")
        self.output_layer_norm = layer_norm("output_layer_norm")
        self.dropout = FastDropout(dropout_rate, dtype=self.dtype_policy, name="dropout")
        self.attention_dropout = FastDropout(attention_dropout_rate, dtype=self.dtype_policy, name="attention_dropout")

    def build(self, hidden_states_shape, input_mask_shape=None, rel_table_shape=None):
        rows = (None, self.hidden_size)
        for layer in (self.query_proj, self.key_proj, self.value_proj, self.pos_key_proj, self.pos_query_proj,
                      self.attention_output, self.intermediate):
            if layer is not None:
                layer.build(rows)
        self.output_dense.build((None, self.intermediate_size))
        self.attention_layer_norm.build(rows)
        self.output_layer_norm.build(rows)
        self.built = True

    def _heads(self, x):
        shape = ops.shape(x)  # (..., rows, hidden) -> (..., heads, rows, head_size)
        x = ops.reshape(x, tuple(shape[:-1]) + (self.num_heads, self.head_size))
        return ops.swapaxes(x, -2, -3)

    def _position_scores(self, query, key, rel_table, seq):
        """c2p + p2c, `[batch, heads, seq, seq]` (query i, key j), each over the scale."""
        relative = relative_positions(seq, self.span, self.position_buckets, self.max_distance)  # (i, j)
        table = rel_table[: 2 * self.span]  # (2 * span, hidden)
        shape = ops.shape(query)[:2] + (seq, seq)
        score = 0.0
        if "c2p" in self.pos_att_type:
            pos_key = self._heads((self.key_proj if self.share_att_key else self.pos_key_proj)(table))
            c2p = ops.matmul(query, ops.swapaxes(pos_key, -1, -2))  # (batch, heads, seq, 2 * span)
            index = ops.clip(relative + self.span, 0, 2 * self.span - 1)  # (i, j)
            score = score + ops.take_along_axis(c2p, ops.broadcast_to(index, shape), axis=-1) / self.scale
        if "p2c" in self.pos_att_type:
            pos_query = self._heads((self.query_proj if self.share_att_key else self.pos_query_proj)(table))
            p2c = ops.matmul(key, ops.swapaxes(pos_query, -1, -2))  # (batch, heads, seq_key, 2 * span)
            index = ops.clip(self.span - relative, 0, 2 * self.span - 1)  # (key j, query i): j - i + span
            p2c = ops.take_along_axis(p2c, ops.broadcast_to(index, shape), axis=-1)  # (batch, heads, j, i)
            score = score + ops.swapaxes(p2c, -1, -2) / self.scale  # (batch, heads, i, j)
        return score

    def call(self, hidden_states, input_mask, rel_table=None, training=None):
        seq = ops.shape(hidden_states)[1]
        query, key, value = (self._heads(dense(hidden_states)) for dense in (
            self.query_proj, self.key_proj, self.value_proj))  # (batch, heads, seq, head_size)
        scores = ops.matmul(query, ops.swapaxes(key, -1, -2)) / self.scale  # (batch, heads, seq, seq)
        if self.pos_att_type:
            table = self.dropout(rel_table, training=training)  # HF's pos_dropout
            scores = scores + self._position_scores(query, key, table, seq)
        mask = ops.cast(input_mask, "bool")
        both = ops.logical_and(mask[:, None, :, None], mask[:, None, None, :])  # (batch, 1, seq, seq)
        scores = ops.where(both, ops.cast(scores, "float32"), _MASKED)
        probs = self.attention_dropout(ops.cast(ops.softmax(scores, axis=-1), value.dtype), training=training)
        context = ops.swapaxes(ops.matmul(probs, value), 1, 2)  # (batch, seq, heads, head_size)
        context = ops.reshape(context, ops.shape(hidden_states))  # (batch, seq, hidden)
        x = self.attention_layer_norm(hidden_states + self.dropout(self.attention_output(context), training=training))
        ffn = self.dropout(self.output_dense(self.intermediate(x)), training=training)
        return self.output_layer_norm(x + ffn)

    def compute_output_shape(self, hidden_states_shape, input_mask_shape=None, rel_table_shape=None):
        return tuple(hidden_states_shape)
