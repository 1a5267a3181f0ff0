"""Rotary position embeddings (RoPE), as ModernBERT and Hugging Face's `rotate_half` apply them."""

import numpy as np
from keras import ops


def rotary_inverse_frequencies(head_size, theta):
    """`1 / theta^(2i / head_size)` for i < head_size / 2, float32 numpy (transformers' default RoPE)."""
    exponents = np.arange(0, head_size, 2, dtype=np.float32) / np.float32(head_size)
    return (1.0 / (np.float32(theta) ** exponents)).astype(np.float32)


def rotary_cos_sin(seq_len, head_size, theta, positions=None):
    """The cos and sin tables `(seq, head_size)` for positions 0..seq_len-1, in float32; with `positions`
    (int `[batch, seq]`: packed rows, restarting at each example) `(batch, 1, seq, head_size)` for those.

    Example:
        >>> cos, sin = rotary_cos_sin(5, 8, 10000.0)
        >>> tuple(cos.shape)
        (5, 8)
    """
    positions = ops.cast(ops.arange(seq_len) if positions is None else positions, "float32")
    angles = ops.expand_dims(positions, -1) * ops.convert_to_tensor(
        rotary_inverse_frequencies(head_size, theta))  # (seq, head_size / 2) or (batch, seq, head_size / 2)
    angles = ops.concatenate([angles, angles], axis=-1)  # (seq, head_size) or (batch, seq, head_size)
    if len(angles.shape) == 3:
        angles = ops.expand_dims(angles, 1)  # (batch, 1, seq, head_size): every head alike
    return ops.cos(angles), ops.sin(angles)


def apply_rotary(x, cos, sin):
    """Rotates `x` `(batch, heads, seq, head_size)` by the position tables (`rotary_cos_sin`'s, either shape):
    `x * cos + rotate_half(x) * sin`, computed in float32 and cast back to x's dtype."""
    dtype = x.dtype
    x = ops.cast(x, "float32")
    half = x.shape[-1] // 2
    rotated = ops.concatenate([-x[..., half:], x[..., :half]], axis=-1)  # rotate_half
    return ops.cast(x * cos + rotated * sin, dtype)
