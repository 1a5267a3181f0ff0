"""SentencePooling: token vectors + their mask -> one sentence vector (sentence-transformers' Pooling)."""

import keras

from keras_bert.layers.bert_layer import BertLayer

POOLING_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens")


def pooling_modes(pooling):
    """`pooling` ("mean", "cls,mean" or a list) as a tuple of `POOLING_MODES`, or a one-line error."""
    modes = tuple(m.strip() for m in pooling.split(",")) if isinstance(pooling, str) else tuple(pooling or ())
    bad = [m for m in modes if m not in POOLING_MODES]
    if not modes or bad:
        raise ValueError(f"pooling={pooling!r} (--pooling): expected one or more of {POOLING_MODES}, "
                         "comma-separated (e.g. 'mean' or 'cls,mean').")
    return modes


@keras.saving.register_keras_serializable(package="keras_bert")
class SentencePooling(BertLayer):
    """Pools `[batch, seq, hidden]` token vectors over the tokens where `mask` is 1, then optionally
    L2-normalizes: the `Pooling` + `Normalize` modules of sentence-transformers, same math.

    Modes (concatenated in the given order): `cls` (the first token), `max` (per-feature max over
    the tokens), `mean` (masked mean), `mean_sqrt_len_tokens` (masked sum / sqrt(tokens)). Computed
    in float32 whatever the encoder's precision, as sentence-transformers accumulates.

    Args:
        modes: one mode or a list of them (see `POOLING_MODES`); "cls,mean" is a list too.
        normalize: divide by the L2 norm (`max(norm, 1e-12)`, as `torch.nn.functional.normalize`).

    Example:
        >>> pool = SentencePooling("mean")
        >>> pool(keras.ops.ones((2, 5, 8)), keras.ops.ones((2, 5), "int32")).shape
        (2, 8)
    """

    def __init__(self, modes="mean", normalize=False, **kwargs):
        kwargs.setdefault("dtype", "float32")
        super().__init__(**kwargs)
        self.store_arguments(modes=list(pooling_modes(modes)), normalize=bool(normalize))

    def call(self, sequence_output, mask):
        ops = keras.ops
        tokens = ops.cast(sequence_output, "float32")  # (batch, seq, hidden)
        weights = ops.expand_dims(ops.cast(mask, "float32"), -1)  # (batch, seq, 1); no new-axis slice: TFLite
        count = ops.maximum(ops.sum(weights, axis=1), 1e-9)  # (batch, 1)
        pooled = []
        for mode in self.modes:
            if mode == "cls":
                pooled.append(tokens[:, 0, :])  # padding is on the right: token 0 is [CLS]
            elif mode == "max":
                pooled.append(ops.max(ops.where(weights > 0, tokens, float("-inf")), axis=1))
            else:
                total = ops.sum(tokens * weights, axis=1)  # (batch, hidden)
                pooled.append(total / (count if mode == "mean" else ops.sqrt(count)))
        vector = pooled[0] if len(pooled) == 1 else ops.concatenate(pooled, axis=-1)
        if self.normalize:
            norm = ops.sqrt(ops.sum(ops.square(vector), axis=-1, keepdims=True))
            vector = vector / ops.maximum(norm, 1e-12)
        return vector

    def compute_output_shape(self, sequence_output_shape, mask_shape=None):
        return (sequence_output_shape[0], sequence_output_shape[-1] * len(self.modes))
