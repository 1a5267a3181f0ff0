"""The one shared layer check: config round trip, symbolic and eager call, one fit step."""

import keras
import numpy as np


def to_numpy(x):
    """A numpy copy of a tensor or variable of any backend (PyTorch ones may require grad)."""
    return keras.ops.convert_to_numpy(x)


def check_layer(layer_factory, inputs, expected_shape):
    """Runs the standard checks on a layer built by `layer_factory()`.

    Args:
        layer_factory: builds a fresh layer (called several times).
        inputs: list of numpy arrays, the layer's positional call arguments.
        expected_shape: the output shape for `inputs`.
    """
    layer = layer_factory()
    # Config round trip: every constructor argument comes back.
    config = layer.get_config()
    clone = layer.__class__.from_config(config)
    assert clone.get_config() == config

    # Eager call.
    eager = layer(*[keras.ops.convert_to_tensor(x) for x in inputs])
    assert tuple(eager.shape) == tuple(expected_shape)
    assert np.all(np.isfinite(to_numpy(eager)))

    # Symbolic call inside a functional model (batch dimension left open).
    symbolic_inputs = [keras.Input(shape=x.shape[1:], dtype=str(x.dtype)) for x in inputs]
    fresh = layer_factory()
    symbolic_output = fresh(*symbolic_inputs)
    assert tuple(symbolic_output.shape)[1:] == tuple(expected_shape)[1:]

    # One fit step changes the trainable weights and gives a finite loss.
    model = keras.Model(symbolic_inputs, symbolic_output)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [to_numpy(w) for w in model.trainable_weights]
    target = np.random.default_rng(0).normal(size=expected_shape).astype("float32")
    history = model.fit(inputs, target, epochs=1, batch_size=len(inputs[0]), verbose=0)
    assert np.isfinite(history.history["loss"][0])
    after = [to_numpy(w) for w in model.trainable_weights]
    assert any(not np.allclose(a, b) for a, b in zip(before, after))
    return model
