"""Helpers shared by the export tests."""

import keras
import numpy as np

FIXTURES = "tests/data/fixtures"


def randomize(model, seed=0, scale=0.2):
    """Sets every weight to random values (non-zero biases, like a trained model; zero biases
    get folded away by tf2onnx and would hide the fusion patterns a real model has)."""
    rng = np.random.default_rng(seed)
    weights = []
    for w in model.get_weights():
        if w.ndim == 1 and w.shape[0] > 1 and np.all(w == 1.0):  # LayerNorm gamma stays near 1
            weights.append((1.0 + scale * rng.standard_normal(w.shape)).astype(w.dtype))
        else:
            weights.append((scale * rng.standard_normal(w.shape)).astype(w.dtype))
    model.set_weights(weights)
    return model


def compile_and_fit(model, dataset, steps):
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(dataset.repeat(), steps_per_epoch=steps, epochs=1, verbose=0)
    return model
