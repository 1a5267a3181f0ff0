"""keras.layers.Dropout with a hook for a keep-mask that is cheaper to draw on some backends."""

import keras
from keras import ops

# Backend-specific keep-mask drawers, `fn(inputs, rate, seed_generator) -> bool mask or None`
# (None: not applicable here). layers/ imports no tensorflow (DESIGN.md), so TensorFlow's
# XLA drawer lives in keras_bert/training/xla_keep_mask.py and registers itself; importing
# any part of keras_bert imports it.
_KEEP_MASK_DRAWERS = []


def register_keep_mask_drawer(drawer):
    """Adds `drawer` to the ones `FastDropout` asks, in order, before using Keras's own mask."""
    if drawer not in _KEEP_MASK_DRAWERS:
        _KEEP_MASK_DRAWERS.append(drawer)
    return drawer


@keras.saving.register_keras_serializable(package="keras_bert")
class FastDropout(keras.layers.Dropout):
    """`keras.layers.Dropout` whose mask is drawn with threefry under XLA on TensorFlow.

    Same arguments, config, seed state and inverted scaling as `keras.layers.Dropout`
    (so checkpoints and `.keras` files are unchanged). Inside a `jit_compile=True`
    function on the TensorFlow backend the keep-mask comes from
    `tf.random.stateless_uniform(alg="threefry")` (registered by
    `keras_bert/training/xla_keep_mask.py`, which gives the measurements), which XLA on
    CPU runs 3-5x faster than Keras's default algorithm inside a training step (>100x
    alone); everywhere else (eager, graph without XLA, JAX, PyTorch, or `noise_shape` set)
    it is exactly `keras.layers.Dropout`.

    Args:
        rate: fraction of the inputs to drop, in [0, 1].
        noise_shape: optional broadcast shape of the mask (uses Keras's path).
        seed: optional integer seed; masks still change at every call.

    Example:
        >>> layer = FastDropout(0.5, seed=1)
        >>> y = layer(keras.ops.ones((2, 4)), training=True)  # entries are 0 or 2
    """

    def call(self, inputs, training=False):
        if not training or self.rate == 0 or self.rate == 1 or self.noise_shape is not None:
            return super().call(inputs, training=training)
        for drawer in _KEEP_MASK_DRAWERS:
            keep = drawer(inputs, self.rate, self.seed_generator)
            if keep is not None:
                scale = ops.cast(1.0 / (1.0 - self.rate), inputs.dtype)
                return ops.where(keep, inputs * scale, ops.zeros_like(inputs))
        return super().call(inputs, training=training)
