"""MultipleNegativesRankingLoss: in-batch negatives for (anchor, positive) embedding pairs."""

import keras


@keras.saving.register_keras_serializable(package="keras_bert")
class MultipleNegativesRankingLoss(keras.losses.Loss):
    """Cross-entropy over scaled cosine similarities: anchor i must pick positive i among the
    batch's positives (sentence-transformers' `MultipleNegativesRankingLoss`, scale 20).

    `y_pred` holds the embeddings of interleaved pairs `[a0, p0, a1, p1, ...]` (`[2 * pairs, dim]`),
    so any even split of a batch (replicas, gradient accumulation) keeps each pair together;
    `y_true` is ignored. Returns the loss of each anchor (`[pairs]`), averaged by Keras.

    Args:
        scale: multiplies the cosine similarities (1 / temperature).

    Example:
        >>> loss = MultipleNegativesRankingLoss(scale=20.0)
        >>> pairs = keras.ops.array([[1., 0], [1, 0], [0, 1], [0, 1]])  # (a0, p0), (a1, p1)
        >>> round(float(loss(keras.ops.zeros((4,)), pairs)), 6)
        0.0
    """

    def __init__(self, scale=20.0, name="multiple_negatives_ranking_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.scale = float(scale)

    def call(self, y_true, y_pred):
        ops = keras.ops
        pairs = ops.reshape(ops.cast(y_pred, "float32"), (-1, 2, ops.shape(y_pred)[-1]))  # (pairs, 2, dim)
        unit = pairs / ops.maximum(ops.sqrt(ops.sum(ops.square(pairs), axis=-1, keepdims=True)), 1e-12)
        scores = self.scale * ops.matmul(unit[:, 0], ops.transpose(unit[:, 1]))  # (anchors, positives)
        targets = ops.arange(ops.shape(scores)[0])
        return keras.losses.sparse_categorical_crossentropy(targets, scores, from_logits=True)  # (pairs,)

    def get_config(self):
        return dict(super().get_config(), scale=self.scale)
