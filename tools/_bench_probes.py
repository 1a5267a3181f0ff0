"""Probes the training benchmark prints beside its contestants: this machine's float32 matmul peak
(the denominator of MFU) and what a dropout mask costs under XLA. See tools/bench_train.py."""

import time


def matmul_peak_flops(size=2048, repeats=10):
    """float32 matmul FLOP/s on this machine (XLA-compiled, best of a few runs)."""
    import tensorflow as tf

    a = tf.random.normal((size, size))
    b = tf.random.normal((size, size))
    @tf.function(jit_compile=True, autograph=False)
    def matmul(x, y):
        return tf.matmul(x, y)

    return 2 * size ** 3 / best_seconds_per_call(lambda: matmul(a, b), lambda result: result.numpy(), repeats)


def best_seconds_per_call(call, wait, repeats=10):
    """Seconds per `call()` (asynchronous: `wait(result)` blocks until the last is done), best of three
    timings of `repeats` calls after one warm-up call (compilation)."""
    wait(call())
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            result = call()
        wait(result)
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def dropout_probe(shape=(32, 4, 128, 128)):
    """ms for Keras Dropout vs keras_bert FastDropout on one attention-sized tensor, both XLA-compiled (best of 3).

    Returns {(layer, "forward" | "train"): ms}. "forward" only applies the dropout; "train"
    also takes the gradient. Keras draws masks with `tf.random.stateless_uniform`'s default
    algorithm, which XLA on CPU fuses into the consumer loop here and runs at ~1 s per mask;
    inside the whole pretraining step XLA happens to emit it as a separate call, ~16 ms per
    mask (keras-hub's profile: 211 ms for 13 masks, FastDropout's threefry 48 ms).
    FastDropout: a few ms either way.
    """
    import keras
    import tensorflow as tf

    from keras_bert.layers import FastDropout

    x = tf.random.uniform(shape)
    times = {}
    for name, layer in (("keras Dropout", keras.layers.Dropout(0.1)), ("FastDropout", FastDropout(0.1))):
        @tf.function(jit_compile=True, autograph=False)
        def forward():
            return layer(x, training=True)

        @tf.function(jit_compile=True, autograph=False)
        def train():
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = tf.reduce_sum(tf.square(layer(x, training=True)))
            return tape.gradient(loss, x)

        for mode, fn in (("forward", forward), ("train", train)):
            times[(name, mode)] = 1000 * best_seconds_per_call(fn, lambda result: result.numpy(), repeats=1)
    return times
