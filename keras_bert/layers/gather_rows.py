"""The rows of a `[batch, seq, ...]` tensor at per-example positions, as one flat gather."""

from keras import ops


def gather_rows(sequence, positions):
    """`sequence` `[batch, seq, ...]` at int `positions` `[batch, q]` -> `[batch, q, ...]`.

    One flat `Gather` over `[batch * seq, ...]`, as Google's `gather_indexes`: XLA and ONNX
    friendly, and on TensorFlow with oneDNN it keeps the indices int32 (`take_along_axis`
    builds int64 ones, which oneDNN logs a fallback warning for on CPUs without AVX-512).
    """
    batch, seq = ops.shape(sequence)[0], ops.shape(sequence)[1]
    offsets = ops.expand_dims(ops.arange(batch, dtype="int32"), 1) * ops.cast(seq, "int32")  # (batch, 1)
    flat_positions = ops.reshape(ops.cast(positions, "int32") + offsets, (-1,))
    tail = tuple(sequence.shape[2:])
    rows = ops.take(ops.reshape(sequence, (-1,) + tail), flat_positions, axis=0)  # (batch * q, ...)
    return ops.reshape(rows, (batch, ops.shape(positions)[1]) + tail)
