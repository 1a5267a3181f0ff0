"""keras.layers.Dropout whose keep-mask is drawn with threefry under XLA on TensorFlow.

Why (tools/bench_train.py, `dropout_probe`): Keras draws masks with
`tf.random.stateless_uniform`'s default algorithm, which XLA on CPU compiles into a
slow generator: one [32, 4, 128, 128] float32 mask under `jit_compile=True` on a CPU takes
Keras's default over 100 times threefry's time alone, several times inside a training step
(the numbers: docs/BENCHMARKS.md, "dropout masks"). Without XLA TensorFlow's kernels implement only
Philox and Keras's path is as fast as the alternatives; JAX and PyTorch draw their own
masks. So the threefry path is taken only on the TensorFlow backend inside XLA.
"""

import keras
from keras import ops

from keras_bert.compat import xla_threefry_keep_mask


@keras.saving.register_keras_serializable(package="keras_bert")
class FastDropout(keras.layers.Dropout):
    """`keras.layers.Dropout` whose mask is drawn with threefry under XLA on TensorFlow.

    Same arguments, config, seed state and inverted scaling as `keras.layers.Dropout`
    (so checkpoints and `.keras` files are unchanged). Inside a `jit_compile=True`
    function on the TensorFlow backend the keep-mask is
    `tf.random.stateless_uniform(alg="threefry") >= rate`, which XLA on CPU runs 3-5x
    faster than Keras's default algorithm inside a training step (>100x alone; see the
    module docstring); everywhere else (eager, graph without XLA, JAX, PyTorch, or
    `noise_shape` set) it is exactly `keras.layers.Dropout`.

    Args:
        rate: fraction of the inputs to drop, in [0, 1].
        noise_shape: optional broadcast shape of the mask (uses Keras's path).
        seed: optional integer seed; masks still change at every call.

    Example:
        >>> layer = FastDropout(0.5, seed=1)
        >>> y = layer(keras.ops.ones((2, 4)), training=True)  # entries are 0 or 2
    """

    def call(self, inputs, training=False):
        if (training and 0 < self.rate < 1 and self.noise_shape is None
                and keras.backend.backend() == "tensorflow"):
            keep = xla_threefry_keep_mask(inputs, self.rate, self.seed_generator)
            if keep is not None:
                scale = ops.cast(1.0 / (1.0 - self.rate), inputs.dtype)
                return ops.where(keep, inputs * scale, ops.zeros_like(inputs))
        return super().call(inputs, training=training)

