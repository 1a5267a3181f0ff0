import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from keras_bert.layers import FastDropout
from tests.layers.layer_checks import to_numpy

SHAPE = (64, 1024)
ON_TENSORFLOW = keras.backend.backend() == "tensorflow"
# The threefry path exists only on TensorFlow under XLA; elsewhere FastDropout is keras Dropout.
tensorflow_only = pytest.mark.skipif(not ON_TENSORFLOW, reason="XLA threefry mask: TensorFlow backend only")
if ON_TENSORFLOW:
    import tensorflow as tf


def _xla(fn):
    return tf.function(fn, jit_compile=True, autograph=False)


JIT = [False, pytest.param(True, marks=tensorflow_only)]


@pytest.mark.parametrize("jit", JIT)
def test_drop_rate_and_inverted_scaling(jit):
    layer = FastDropout(0.25, seed=1)
    call = _xla(lambda x: layer(x, training=True)) if jit else (lambda x: layer(x, training=True))
    y = to_numpy(call(keras.ops.ones(SHAPE)))
    dropped = np.mean(y == 0)
    assert abs(dropped - 0.25) < 0.01, dropped  # std of the fraction: 0.0017
    np.testing.assert_allclose(y[y != 0], 1 / 0.75, rtol=1e-6)


@pytest.mark.parametrize("jit", JIT)
def test_identity_at_inference(jit):
    layer = FastDropout(0.5)
    x = np.random.default_rng(0).normal(size=(4, 8)).astype("float32")
    for call in (lambda t: layer(t), lambda t: layer(t, training=False)):
        out = _xla(call)(tf.constant(x)) if jit else call(x)
        np.testing.assert_array_equal(to_numpy(out), x)


@tensorflow_only
def test_masks_change_between_calls_under_xla():
    layer = FastDropout(0.5, seed=3)
    call = _xla(lambda x: layer(x, training=True))
    first, second = (to_numpy(call(tf.ones(SHAPE))) == 0 for _ in range(2))
    assert 0.4 < np.mean(first != second) < 0.6  # independent masks disagree half the time


@pytest.mark.parametrize("jit", JIT)
def test_global_seed_makes_masks_reproducible(jit):
    def masks():
        keras.utils.set_random_seed(7)
        layer = FastDropout(0.5)
        call = _xla(lambda x: layer(x, training=True)) if jit else (lambda x: layer(x, training=True))
        return [to_numpy(call(keras.ops.ones((8, 64)))) for _ in range(2)]

    first, second = masks(), masks()
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])


@tensorflow_only
def test_xla_mask_is_threefry_from_the_seed_state():
    """Under XLA the mask is exactly tf.random.stateless_uniform(alg="threefry") of the seed state."""
    layer = FastDropout(0.3, seed=11)
    seed = tf.cast(layer.seed_generator.state.value, "int32")
    x = np.random.default_rng(1).normal(size=(16, 32)).astype("float32")
    out = to_numpy(_xla(lambda t: layer(t, training=True))(tf.constant(x)))
    # TensorFlow implements threefry only under XLA.
    keep = _xla(lambda: tf.random.stateless_uniform(x.shape, seed, alg="threefry"))().numpy() >= 0.3
    np.testing.assert_allclose(out, np.where(keep, x / np.float32(0.7), 0), rtol=1e-6)
    np.testing.assert_array_equal(to_numpy(layer.seed_generator.state.value), [11, 1])  # advanced


def test_without_xla_it_is_keras_dropout():
    x = np.random.default_rng(2).normal(size=(16, 32)).astype("float32")
    ours, theirs = FastDropout(0.3, seed=5), keras.layers.Dropout(0.3, seed=5)
    for _ in range(2):
        np.testing.assert_array_equal(to_numpy(ours(x, training=True)),
                                      to_numpy(theirs(x, training=True)))


@tensorflow_only
def test_gradient_under_xla_is_the_scaled_mask():
    layer = FastDropout(0.4, seed=2)
    x = tf.random.normal((8, 32))

    @_xla
    def forward_and_grad():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, training=True)
            loss = tf.reduce_sum(y)
        return y, tape.gradient(loss, x)

    y, grad = (to_numpy(t) for t in forward_and_grad())
    np.testing.assert_allclose(grad, np.where(y != 0, 1 / 0.6, 0), rtol=1e-6)


@pytest.mark.parametrize("policy", ["float16", "bfloat16", "mixed_float16", "mixed_bfloat16"])
@pytest.mark.parametrize("jit", JIT)
def test_half_precision(policy, jit):
    layer = FastDropout(0.5, seed=4, dtype=policy)
    call = _xla(lambda x: layer(x, training=True)) if jit else (lambda x: layer(x, training=True))
    y = call(keras.ops.ones((32, 64), layer.compute_dtype))
    assert keras.backend.standardize_dtype(y.dtype) == layer.compute_dtype
    values = keras.ops.convert_to_numpy(keras.ops.cast(y, "float32"))
    assert set(np.unique(values)) == {0.0, 2.0}
    assert 0.4 < np.mean(values == 0) < 0.6


@tensorflow_only
def test_rates_zero_and_one():
    x = np.ones((4, 8), "float32")
    keep_all, drop_all = FastDropout(0.0), FastDropout(1.0)
    np.testing.assert_array_equal(to_numpy(_xla(lambda t: keep_all(t, training=True))(x)), x)
    np.testing.assert_array_equal(to_numpy(_xla(lambda t: drop_all(t, training=True))(x)), 0 * x)


def test_config_round_trip_and_safe_mode_deserialization():
    layer = FastDropout(0.2, seed=9, name="drop")
    config = layer.get_config()
    assert FastDropout.from_config(config).get_config() == config
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer),
                                                     safe_mode=True)
    assert isinstance(restored, FastDropout) and restored.rate == 0.2 and restored.seed == 9


@tensorflow_only
def test_bert_layers_train_with_it_under_xla():
    """In a fresh process: XLA compilation in a process whose earlier tests built tf.distribute
    strategies hung in the full suite, so this check runs on its own."""
    script = """
import numpy as np, tensorflow as tf
from keras_bert.layers import BertEmbeddings, FastDropout, TransformerEncoderBlock
block = TransformerEncoderBlock(hidden_size=16, num_heads=2, intermediate_size=32)
embeddings = BertEmbeddings(vocab_size=50, hidden_size=16)
assert isinstance(block.attention_dropout, FastDropout) and isinstance(block.dropout, FastDropout)
assert isinstance(embeddings.dropout, FastDropout)
ids = tf.constant(np.arange(24).reshape(2, 12) % 50, "int32")
mask = tf.ones((2, 12), "int32")
call = tf.function(lambda training: block(embeddings(ids, training=training), mask, training=training),
                   jit_compile=True)
first, second = np.asarray(call(True)), np.asarray(call(True))
assert np.all(np.isfinite(first)) and not np.allclose(first, second)
np.testing.assert_allclose(np.asarray(call(False)), np.asarray(block(embeddings(ids), mask)), atol=1e-5)
print("ok")
"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            cwd=root, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-3000:]
