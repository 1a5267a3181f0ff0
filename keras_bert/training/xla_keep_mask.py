"""FastDropout's keep-mask under XLA on TensorFlow: threefry instead of Keras's default algorithm.

Keras draws masks with `tf.random.stateless_uniform`'s default algorithm, which XLA on CPU
compiles into a slow generator. One [32, 4, 128, 128] float32 mask under `jit_compile=True`
on a 2-core CPU (dropout_probe in tools/bench_train.py): Keras 600-1000 ms alone, ~16 ms
inside the whole pretraining step; alg="philox" 13-23 ms; alg="threefry" 3-6 ms (uint32 bits
compared with a threshold: 4-5 ms, no gain). Without XLA, TensorFlow's kernels only
implement Philox and Keras's path (8-12 ms) is as fast as the alternatives, so it stays.
Lives here, not in layers/, because it needs tensorflow (DESIGN.md); tested through
FastDropout in tests/layers/test_fast_dropout.py.
"""

import keras
import tensorflow as tf
from tensorflow.python.ops import control_flow_util  # what TF's own gradients use to detect XLA

from keras_bert.layers.fast_dropout import register_keep_mask_drawer


@register_keep_mask_drawer
def xla_threefry_keep_mask(inputs, rate, seed_generator):
    """Boolean keep-mask drawn with threefry when tracing for XLA on TensorFlow, else None
    (and then no seed is drawn)."""
    if keras.backend.backend() != "tensorflow":
        return None
    if not control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()):
        return None
    seed = tf.cast(tf.math.floormod(seed_generator.next(), 2**31 - 1), "int32")  # XLA wants int32
    return tf.random.stateless_uniform(tf.shape(inputs), seed, alg="threefry") >= rate
