"""Trace-time rewrites that make a traced BERT graph convertible (TFLite) or fusable (ONNX Runtime)."""

import contextlib

import tensorflow as tf


def _is_pure_newaxis(spec, rank):
    if not isinstance(spec, tuple) or not any(s is None for s in spec):
        return False
    kept = [s for s in spec if s is not None]
    return (rank is not None and len(kept) == rank
            and all(isinstance(s, slice) and s == slice(None) for s in kept))


@contextlib.contextmanager
def newaxis_as_expand_dims():
    """While active, `x[:, None, None, :]`-style indexing traces as `ExpandDims` ops.

    TFLite's converter cannot lower a `StridedSlice` with `new_axis_mask` on a tensor of
    dynamic shape: with `allow_custom_ops` it leaves a `StridedSlice` *custom* op that no
    interpreter can run (measured on the attention-mask bias of
    `TransformerEncoderBlock`). `ExpandDims` converts to a builtin and is also what ONNX
    Runtime's attention fusion expects (`Unsqueeze`). Only pure axis insertions (every
    other index a full `:`) are rewritten; anything else traces as before. The numbers
    are identical.

    Example:
        >>> with newaxis_as_expand_dims():
        ...     concrete = module.serve_ids.get_concrete_function()
    """
    original = tf.Tensor.__getitem__

    def getitem(tensor, spec):
        if _is_pure_newaxis(spec, tensor.shape.rank):
            for axis, item in enumerate(spec):
                if item is None:
                    tensor = tf.expand_dims(tensor, axis)
            return tensor
        return original(tensor, spec)

    tf.Tensor.__getitem__ = getitem
    try:
        yield
    finally:
        tf.Tensor.__getitem__ = original


@contextlib.contextmanager
def tensordot_as_matmul():
    """While active, `tf.tensordot(x, w, [[-1], [0]])` of rank-3 `x` and rank-2 `w` traces as one `tf.matmul`.

    Keras's `Dense` computes `[batch, seq, in] @ [in, out]` with `tf.tensordot`, which
    traces as Reshape -> MatMul -> Reshape. ONNX Runtime's transformer fusions expect
    `MatMul -> Add(bias)` directly on the 3-D hidden states (as PyTorch exports it), so
    the reshapes between MatMul and bias block the Attention and SkipLayerNormalization
    fusions. A broadcasting `BatchMatMulV2` exports as one ONNX `MatMul`. Same numbers.
    """
    original = tf.tensordot

    def tensordot(a, b, axes, name=None):
        a_rank = getattr(getattr(a, "shape", None), "rank", None)
        b_rank = getattr(getattr(b, "shape", None), "rank", None)
        if a_rank == 3 and b_rank == 2 and _as_axes(axes) == ([-1], [0]):
            return tf.matmul(a, b, name=name)
        return original(a, b, axes, name=name)

    tf.tensordot = tensordot
    try:
        yield
    finally:
        tf.tensordot = original


def _as_axes(axes):
    try:
        first, second = axes
        return [int(i) for i in first], [int(i) for i in second]
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def export_tracing():
    """Both trace-time rewrites above; wrap `get_concrete_function()` calls for TFLite / ONNX."""
    with newaxis_as_expand_dims(), tensordot_as_matmul():
        yield
