"""One post-LayerNorm transformer encoder block, as in BERT."""

import keras
from keras import ops

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout
from keras_bert.layers.gather_rows import gather_rows
from keras_bert.layers.windowed_attention import attention_keep, fused_attention, fused_attention_enabled

# Added to the attention scores of padding keys. Google's BERT uses -10000:
# exp(-10000) is exactly 0 in float32, and the value also fits in float16.
_MASK_BIAS = -10000.0


@keras.saving.register_keras_serializable(package="keras_bert")
class TransformerEncoderBlock(BertLayer):
    """Padding-masked multi-head self-attention and a GELU feed-forward, post-LayerNorm.

    `x = LN(x + Dropout(Attention(x)))`, then `x = LN(x + Dropout(FFN(x)))`. Called with
    `example_ids` (int `[batch, seq]`, 1..k per packed example, 0 on padding), attention is
    block-diagonal: a token attends only to tokens of its own example.

    Args:
        hidden_size: width of the hidden states.
        num_heads: attention heads; must divide hidden_size.
        intermediate_size: width of the feed-forward layer.
        hidden_act: "gelu" (exact erf), "gelu_tanh" or "relu".
        dropout_rate: dropout on the attention output and the feed-forward output.
        attention_dropout_rate: dropout on the attention probabilities.
        initializer_range: stddev of the truncated-normal initializer.
        layer_norm_eps: LayerNorm epsilon.

    Example:
        >>> block = TransformerEncoderBlock(hidden_size=16, num_heads=2, intermediate_size=32)
        >>> x = keras.ops.ones((2, 5, 16))
        >>> block(x, keras.ops.ones((2, 5), "int32")).shape
        (2, 5, 16)
    """

    def __init__(self, hidden_size, num_heads, intermediate_size, hidden_act="gelu",
                 dropout_rate=0.1, attention_dropout_rate=0.1, initializer_range=0.02,
                 layer_norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        if hidden_size % num_heads:
            raise ValueError(f"hidden_size ({hidden_size}) must be divisible by num_heads ({num_heads}).")
        self.store_arguments(hidden_size=hidden_size, num_heads=num_heads,
            intermediate_size=intermediate_size, hidden_act=hidden_act, dropout_rate=dropout_rate,
            attention_dropout_rate=attention_dropout_rate, initializer_range=initializer_range,
            layer_norm_eps=layer_norm_eps)
        self.head_size = hidden_size // num_heads
        self.activation = get_activation(hidden_act)

        def dense(units, name):
            return keras.layers.Dense(
                units, kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
                dtype=self.dtype_policy, name=name)

        def layer_norm(name):
            return keras.layers.LayerNormalization(epsilon=layer_norm_eps, dtype=self.dtype_policy, name=name)

        self.query = dense(hidden_size, "query")
        self.key = dense(hidden_size, "key")
        self.value = dense(hidden_size, "value")
        self.attention_output = dense(hidden_size, "attention_output")
        self.attention_layer_norm = layer_norm("attention_layer_norm")
        self.intermediate = dense(intermediate_size, "intermediate")
        self.output_dense = dense(hidden_size, "output")
        self.output_layer_norm = layer_norm("output_layer_norm")
        self.attention_dropout = FastDropout(attention_dropout_rate, dtype=self.dtype_policy)
        self.dropout = FastDropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, inputs_shape, padding_mask_shape=None, example_ids_shape=None):
        hidden_shape = (None, self.hidden_size)  # any leading dims (see call)
        for layer in (self.query, self.key, self.value, self.attention_output, self.intermediate,
                      self.attention_layer_norm, self.output_layer_norm):
            layer.build(hidden_shape)
        self.output_dense.build((None, self.intermediate_size))
        self.built = True

    def _dense(self, dense, x):
        """`dense(x)` for (batch * seq, hidden); for (batch, seq, hidden) one batched matmul + bias.

        Keras's `Dense` on a 3-D input traces on TensorFlow as Reshape -> MatMul -> Reshape
        (`tf.tensordot`), which hides the `MatMul -> Add(bias)` pattern ONNX Runtime's
        Attention and SkipLayerNormalization fusions match; this einsum traces as one
        broadcasting `BatchMatMulV2` (one ONNX `MatMul`). Same weights, same numbers.
        """
        if len(x.shape) == 2:
            return dense(x)
        kernel = ops.cast(dense.kernel, x.dtype)  # (in, out)
        return ops.einsum("bsi,io->bso", x, kernel) + ops.cast(dense.bias, x.dtype)  # (batch, seq, out)

    def _split_heads(self, x, batch, seq):
        x = ops.reshape(x, (batch, seq, self.num_heads, self.head_size))  # (batch, seq, heads, head_size)
        return ops.transpose(x, (0, 2, 1, 3))  # (batch, heads, seq, head_size)

    def _attention(self, x, batch, seq, padding_mask, example_ids, training, queries=None, seq_q=None,
                   query_example_ids=None):
        """Self-attention of x, (batch, seq, hidden) or (batch * seq, hidden); same shape out.
        `queries` (batch, seq_q, hidden) or (batch * seq_q, hidden): only those rows attend (to all
        of x), out in their shape; `query_example_ids` (batch, seq_q): their example ids (packed rows)."""
        if queries is None:
            queries, seq_q, query_example_ids = x, seq, example_ids
        if fused_attention_enabled(training and self.attention_dropout_rate > 0):
            def heads(dense, rows, length):  # (batch, seq, heads, head_size): the fused op's layout
                return ops.reshape(self._dense(dense, rows), (batch, length, self.num_heads, self.head_size))

            scale = ops.cast(1.0 / self.head_size ** 0.5, queries.dtype)
            keep = attention_keep(ops.ones((batch, seq), "int32") if padding_mask is None else padding_mask,
                                  query_example_ids, example_ids)
            context = fused_attention(heads(self.query, queries, seq_q) * scale, heads(self.key, x, seq),
                                      heads(self.value, x, seq), keep)  # (batch, seq_q, heads, head_size)
            context = ops.reshape(context, (-1, self.hidden_size) if len(x.shape) == 2
                                  else (batch, seq_q, self.hidden_size))
            return self._dense(self.attention_output, context)
        query = self._split_heads(self._dense(self.query, queries), batch, seq_q)
        key = self._split_heads(self._dense(self.key, x), batch, seq)
        value = self._split_heads(self._dense(self.value, x), batch, seq)
        query = query * ops.cast(1.0 / self.head_size ** 0.5, query.dtype)
        scores = ops.matmul(query, ops.transpose(key, (0, 1, 3, 2)))  # (batch, heads, seq, seq)
        if example_ids is not None:  # packed rows: each token sees its own example's tokens
            same = ops.equal(ops.expand_dims(query_example_ids, 2), ops.expand_dims(example_ids, 1))  # (batch, seq_q, seq_k)
            if padding_mask is not None:
                same = ops.logical_and(same, ops.expand_dims(ops.cast(padding_mask, "bool"), 1))
            bias = (1.0 - ops.cast(same, scores.dtype)) * _MASK_BIAS
            scores = scores + ops.expand_dims(bias, 1)  # (batch, heads, seq_q, seq_k)
        elif padding_mask is not None:
            bias = (1.0 - ops.cast(padding_mask, scores.dtype)) * _MASK_BIAS  # (batch, seq)
            scores = scores + ops.expand_dims(bias, (1, 2))  # (batch, heads, seq_q, seq_k)
        if scores.dtype != "float32":  # mixed precision: softmax in float32
            probs = ops.cast(ops.softmax(ops.cast(scores, "float32"), axis=-1), scores.dtype)
        else:
            probs = ops.softmax(scores, axis=-1)
        probs = self.attention_dropout(probs, training=training)
        context = ops.matmul(probs, value)  # (batch, heads, seq, head_size)
        context = ops.transpose(context, (0, 2, 1, 3))  # (batch, seq, heads, head_size)
        context = ops.reshape(context, (-1, self.hidden_size) if len(x.shape) == 2
                              else (batch, seq_q, self.hidden_size))
        return self._dense(self.attention_output, context)

    def call(self, inputs, padding_mask=None, example_ids=None, training=None, query_positions=None):
        """`query_positions` (int `[batch, q]`): only those rows go on past the keys and values; they
        attend to every row, and the output `(batch, q, hidden)` equals the full output's rows there.
        For a last layer whose reader needs a few rows: `[CLS]` for a pooled head (~1.15x a MiniLM
        forward at batch 32, seq 40-128, 1 thread); `[CLS]` + the masked positions in pretraining."""
        batch, seq = ops.shape(inputs)[0], ops.shape(inputs)[1]
        rows = seq if query_positions is None else ops.shape(query_positions)[1]  # the output's rows
        queries = query_example_ids = None
        if query_positions is not None:  # the rows that go on past the attention
            queries = gather_rows(inputs, query_positions)  # (batch, q, hidden)
            if example_ids is not None:
                query_example_ids = gather_rows(example_ids, query_positions)
        # In training, Dense and LayerNorm see (batch * seq, hidden), as in Google's BERT:
        # their bias / gamma / beta gradients are then reductions over one axis, which XLA
        # on CPU runs ~4x faster than over (batch, seq) (12% faster pretraining step,
        # tools/bench_train.py). Inference keeps (batch, seq, hidden), the layout ONNX
        # Runtime's BERT fusions match.
        x = ops.reshape(inputs, (-1, self.hidden_size)) if training else inputs
        if training and queries is not None:
            queries = ops.reshape(queries, (-1, self.hidden_size))
        attention = self._attention(x, batch, seq, padding_mask, example_ids, training,
                                    queries=queries, seq_q=rows, query_example_ids=query_example_ids)
        x = self.attention_layer_norm((x if queries is None else queries) + self.dropout(attention, training=training))
        ffn = self._dense(self.output_dense, self.activation(self._dense(self.intermediate, x)))
        ffn = self.dropout(ffn, training=training)
        x = self.output_layer_norm(x + ffn)
        return ops.reshape(x, (batch, rows, self.hidden_size)) if training else x

    def compute_output_shape(self, inputs_shape, padding_mask_shape=None, example_ids_shape=None):
        return tuple(inputs_shape)  # query_positions (never symbolic) give (batch, q, hidden)
