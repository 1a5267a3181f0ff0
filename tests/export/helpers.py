"""Helpers shared by the export tests."""

import numpy as np


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
