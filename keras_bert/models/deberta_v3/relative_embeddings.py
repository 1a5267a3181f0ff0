"""DeBERTa's shared relative position embeddings and the log-bucket relative positions they are read at."""

import keras
from keras import ops

from keras_bert.layers.bert_layer import BertLayer


def relative_positions(length, span, buckets, max_distance):
    """int32 `[length, length]`: the row of the relative embedding table each (query i, key j) reads
    before the shift by `span`, `i - j`; with `buckets` > 0 distances beyond `buckets // 2` fall into log
    buckets scaled to `max_distance` (HF's `make_log_bucket_position`, computed as it does, in float32)."""
    ids = ops.arange(length, dtype="int32")
    relative = ops.expand_dims(ids, 1) - ops.expand_dims(ids, 0)  # (query, key)
    if buckets <= 0:
        return relative
    mid = buckets // 2
    signed = ops.cast(relative, "float32")
    near = ops.logical_and(relative < mid, relative > -mid)
    distance = ops.where(near, float(mid - 1), ops.abs(signed))
    scale = ops.log(ops.convert_to_tensor((max_distance - 1) / mid, "float32"))
    log_position = ops.ceil(ops.log(distance / mid) / scale * (mid - 1)) + mid
    bucketed = ops.where(distance <= mid, signed, log_position * ops.sign(signed))
    return ops.cast(bucketed, "int32")


@keras.saving.register_keras_serializable(package="keras_bert")
class RelativeEmbeddings(BertLayer):
    """The table of `2 * span` relative position embeddings every layer shares (HF's
    `encoder.rel_embeddings`), through its LayerNorm where `layer_norm` (`norm_rel_ebd="layer_norm"`).

    Called on the hidden states (for their dtype only), returns the table, `[2 * span, hidden]`.

    Args:
        span: relative positions are clipped to [-span, span) (`position_buckets`, or the maximum distance).
        hidden_size: the embeddings' width.
        layer_norm: whether the table passes a LayerNorm.
        layer_norm_eps, initializer_range: as the encoder's.

    Example:
        >>> RelativeEmbeddings(4, 8)(keras.ops.ones((2, 3, 8))).shape
        (8, 8)
    """

    def __init__(self, span, hidden_size, layer_norm=True, layer_norm_eps=1e-7, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(span=span, hidden_size=hidden_size, layer_norm=layer_norm,
                             layer_norm_eps=layer_norm_eps, initializer_range=initializer_range)
        self.rel_embeddings = keras.layers.Embedding(
            2 * span, hidden_size, embeddings_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy, name="rel_embeddings")
        self.norm = keras.layers.LayerNormalization(epsilon=layer_norm_eps, dtype=self.dtype_policy,
                                                    name="layer_norm") if layer_norm else None

    def build(self, hidden_states_shape=None):
        self.rel_embeddings.build((None,))
        if self.norm is not None:
            self.norm.build((None, self.hidden_size))
        self.built = True

    def call(self, hidden_states):
        table = ops.cast(self.rel_embeddings.embeddings, hidden_states.dtype)  # (2 * span, hidden)
        return self.norm(table) if self.norm is not None else table

    def compute_output_shape(self, hidden_states_shape):
        return (2 * self.span, self.hidden_size)
