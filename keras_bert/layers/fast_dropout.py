"""keras.layers.Dropout with a mask that is cheap to draw under XLA on the TensorFlow backend."""

import keras
from keras import ops


def _tf_xla_keep_mask(inputs, rate, seed_generator):
    """Boolean keep-mask drawn with threefry when tracing for XLA on TensorFlow, else None.

    Keras draws masks with `tf.random.stateless_uniform`'s default algorithm, which XLA on
    CPU compiles into a slow generator. One [32, 4, 128, 128] float32 mask under
    `jit_compile=True` on this 2-core CPU (dropout_probe in tools/bench_train.py): Keras
    600-1000 ms alone, ~16 ms inside the whole pretraining step; alg="philox" 13-23 ms;
    alg="threefry" 3-6 ms (uint32 bits compared with a threshold: 4-5 ms, no gain). Without
    XLA, TensorFlow's kernels only implement Philox and Keras's path (8-12 ms) is as fast
    as the alternatives, so it stays (None, and no seed drawn).
    """
    if keras.backend.backend() != "tensorflow":
        return None
    import tensorflow as tf
    from tensorflow.python.ops import control_flow_util  # what TF's own gradients use to detect XLA

    if not control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()):
        return None
    seed = tf.cast(tf.math.floormod(seed_generator.next(), 2**31 - 1), "int32")  # XLA wants int32
    return tf.random.stateless_uniform(tf.shape(inputs), seed, alg="threefry") >= rate


@keras.saving.register_keras_serializable(package="keras_bert")
class FastDropout(keras.layers.Dropout):
    """`keras.layers.Dropout` whose mask is drawn with threefry under XLA on TensorFlow.

    Same arguments, config, seed state and inverted scaling as `keras.layers.Dropout`
    (so checkpoints and `.keras` files are unchanged). Inside a `jit_compile=True`
    function on the TensorFlow backend the keep-mask comes from
    `tf.random.stateless_uniform(alg="threefry")`, which XLA on CPU runs 3-5x faster than
    Keras's default algorithm inside a training step (>100x alone); everywhere else (eager, graph without XLA, JAX, PyTorch, or
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
        if not training or self.rate == 0 or self.rate == 1 or self.noise_shape is not None:
            return super().call(inputs, training=training)
        keep = _tf_xla_keep_mask(inputs, self.rate, self.seed_generator)
        if keep is None:
            return super().call(inputs, training=training)
        scale = ops.cast(1.0 / (1.0 - self.rate), inputs.dtype)
        return ops.where(keep, inputs * scale, ops.zeros_like(inputs))
