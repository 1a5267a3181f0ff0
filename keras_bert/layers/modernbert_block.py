"""One pre-LayerNorm ModernBERT block: rotary attention (global or sliding window) and a GeGLU MLP."""

import keras
from keras import ops

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout
from keras_bert.layers.rotary_embedding import apply_rotary, rotary_cos_sin
from keras_bert.layers.windowed_attention import global_attention, sliding_window_attention


@keras.saving.register_keras_serializable(package="keras_bert")
class ModernBertBlock(BertLayer):
    """`x + Attention(attn_norm(x))`, then `x + Wo(act(input) * gate)` with `input, gate = Wi(mlp_norm(x))`.

    Attention has no biases by default, rotary positions (`rope_theta`) on queries and keys, and
    sees either every unpadded token (`half_window=None`, a global layer) or the tokens at most
    `half_window` positions away (a local layer, computed band by band: `windowed_attention`). Called with
    `example_ids` (int `[batch, seq]`, 1..k per packed example, 0 on padding) and `position_ids` (restarting
    at each example), a token attends only to its own example's tokens, rotated by its own positions.
    Sub-layer names follow Hugging Face's `ModernBertEncoderLayer` (`attn_norm`, `Wqkv`, ...).

    Args:
        hidden_size: width of the hidden states.
        num_heads: attention heads; must divide hidden_size.
        intermediate_size: width of the GeGLU's input and gate halves.
        hidden_act: the GeGLU's activation ("gelu" exact erf, "gelu_tanh" or "relu").
        half_window: None for global attention, else local_attention // 2.
        rope_theta: the rotary base (160000 on global layers, 10000 on local ones in ModernBERT).
        norm_eps: LayerNorm epsilon.
        norm_bias: LayerNorms with a bias (beta).
        attention_bias: `Wqkv` and the attention's `Wo` with biases.
        mlp_bias: `Wi` and the MLP's `Wo` with biases.
        attention_dropout: dropout on the attention probabilities and the attention output.
        mlp_dropout: dropout on `act(input) * gate`.
        initializer_range: stddev of the truncated-normal initializer.
        attention_norm: False for ModernBERT's first layer (its `attn_norm` is the identity).
        query_chunk: a global layer's queries attend this many at a time (memory O(seq * query_chunk);
            None: the whole score matrix at once). Not in training with attention dropout.

    Example:
        >>> block = ModernBertBlock(hidden_size=16, num_heads=2, intermediate_size=24, half_window=4)
        >>> block(keras.ops.ones((2, 5, 16)), keras.ops.ones((2, 5), "int32")).shape
        (2, 5, 16)
    """

    def __init__(self, hidden_size, num_heads, intermediate_size, hidden_act="gelu", half_window=None,
                 rope_theta=160000.0, norm_eps=1e-5, norm_bias=False, attention_bias=False, mlp_bias=False,
                 attention_dropout=0.0, mlp_dropout=0.0, initializer_range=0.02, attention_norm=True,
                 query_chunk=1024, **kwargs):
        super().__init__(**kwargs)
        if hidden_size % num_heads:
            raise ValueError(f"hidden_size ({hidden_size}) must be divisible by num_heads ({num_heads}).")
        if half_window is not None and int(half_window) < 1:
            raise ValueError(f"half_window must be None (global) or >= 1, got {half_window!r}.")
        self.store_arguments(hidden_size=hidden_size, num_heads=num_heads,
            intermediate_size=intermediate_size, hidden_act=hidden_act, half_window=half_window,
            rope_theta=float(rope_theta), norm_eps=norm_eps, norm_bias=bool(norm_bias),
            attention_bias=bool(attention_bias), mlp_bias=bool(mlp_bias),
            attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
            initializer_range=initializer_range, attention_norm=bool(attention_norm),
            query_chunk=query_chunk)
        self.head_size = hidden_size // num_heads
        self.activation = get_activation(hidden_act)

        def dense(units, bias, name):
            return keras.layers.Dense(
                units, use_bias=bias, dtype=self.dtype_policy, name=name,
                kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range))

        def layer_norm(name):
            return keras.layers.LayerNormalization(epsilon=norm_eps, center=self.norm_bias,
                                                   dtype=self.dtype_policy, name=name)

        self.attn_norm = layer_norm("attn_norm") if self.attention_norm else None
        self.wqkv = dense(3 * hidden_size, self.attention_bias, "Wqkv")
        self.attn_wo = dense(hidden_size, self.attention_bias, "attn_Wo")
        self.mlp_norm = layer_norm("mlp_norm")
        self.wi = dense(2 * intermediate_size, self.mlp_bias, "Wi")
        self.mlp_wo = dense(hidden_size, self.mlp_bias, "mlp_Wo")
        self.attention_probs_dropout = FastDropout(attention_dropout, dtype=self.dtype_policy)
        self.attention_output_dropout = FastDropout(attention_dropout, dtype=self.dtype_policy)
        self.mlp_dropout_layer = FastDropout(mlp_dropout, dtype=self.dtype_policy)

    def build(self, inputs_shape, padding_mask_shape=None, example_ids_shape=None, position_ids_shape=None):
        hidden_shape = (None, None, self.hidden_size)
        for layer in filter(None, (self.attn_norm, self.mlp_norm, self.wqkv, self.attn_wo, self.wi)):
            layer.build(hidden_shape)
        self.mlp_wo.build((None, None, self.intermediate_size))
        self.built = True

    def _attention(self, x, padding_mask, example_ids, position_ids, training):
        batch, seq = ops.shape(x)[0], ops.shape(x)[1]
        qkv = ops.reshape(self.wqkv(x), (batch, seq, 3, self.num_heads, self.head_size))  # (batch, seq, 3, heads, d)
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))  # (3, batch, heads, seq, d)
        cos, sin = rotary_cos_sin(seq, self.head_size, self.rope_theta, position_ids)  # (seq, d) or (batch, 1, seq, d)
        query = apply_rotary(qkv[0], cos, sin) * ops.cast(self.head_size ** -0.5, x.dtype)
        key, value = apply_rotary(qkv[1], cos, sin), qkv[2]
        if self.half_window is None:
            dropout = self.attention_probs_dropout if training and self.attention_dropout > 0 else None
            context = global_attention(query, key, value, padding_mask, dropout, training, self.query_chunk,
                                       example_ids=example_ids)
        else:
            context = sliding_window_attention(query, key, value, padding_mask, self.half_window,
                                               self.attention_probs_dropout, training, example_ids=example_ids)
        context = ops.transpose(context, (0, 2, 1, 3))  # (batch, seq, heads, d)
        context = ops.reshape(context, (batch, seq, self.hidden_size))  # (batch, seq, hidden)
        return self.attention_output_dropout(self.attn_wo(context), training=training)

    def call(self, inputs, padding_mask=None, example_ids=None, position_ids=None, training=None):
        if padding_mask is None:
            padding_mask = ops.ones(ops.shape(inputs)[:2], "int32")
        normed = self.attn_norm(inputs) if self.attn_norm is not None else inputs
        x = inputs + self._attention(normed, padding_mask, example_ids, position_ids, training)
        gate_input, gate = ops.split(self.wi(self.mlp_norm(x)), 2, axis=-1)  # (batch, seq, intermediate) each
        hidden = self.mlp_dropout_layer(self.activation(gate_input) * gate, training=training)
        return x + self.mlp_wo(hidden)

    def compute_output_shape(self, inputs_shape, padding_mask_shape=None, example_ids_shape=None,
                             position_ids_shape=None):
        return tuple(inputs_shape)
