"""models/multiple_negatives_ranking_loss.py: anchor i picks positive i among the batch's positives."""

import keras
import numpy as np

from keras_bert.models.multiple_negatives_ranking_loss import MultipleNegativesRankingLoss


def _reference(anchors, positives, scale):
    unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    scores = scale * unit(anchors) @ unit(positives).T
    scores -= scores.max(axis=1, keepdims=True)
    return -np.mean(np.diag(scores) - np.log(np.exp(scores).sum(axis=1)))


def test_the_loss_is_cross_entropy_of_scaled_cosines_over_interleaved_pairs():
    rng = np.random.default_rng(0)
    anchors, positives = rng.normal(size=(4, 8)), rng.normal(size=(4, 8))
    interleaved = np.stack([anchors, positives], axis=1).reshape(8, 8).astype("float32")  # a0, p0, a1, p1...
    loss = MultipleNegativesRankingLoss(scale=5.0)
    got = float(loss(np.zeros(8), interleaved))
    np.testing.assert_allclose(got, _reference(anchors, positives, 5.0), rtol=1e-5)
    swapped = np.stack([anchors, positives[::-1]], axis=1).reshape(8, 8).astype("float32")
    assert float(loss(np.zeros(8), swapped)) != got  # the pairing matters


def test_the_scale_survives_serialization():
    loss = keras.losses.deserialize(keras.losses.serialize(MultipleNegativesRankingLoss(scale=7)))
    assert isinstance(loss, MultipleNegativesRankingLoss) and loss.scale == 7.0
