"""models/multiple_choice_head.py: one dense unit on each choice row's pooled output, [batch, choices] scores."""

import keras
import numpy as np

from keras_bert.models import builders

from .tiny_bert import TINY, encoder_batch, randomized


def test_multiple_choice_scores_each_row_like_a_one_unit_classifier():
    """The head is one dense unit on each `[CLS] context [SEP] ending [SEP]` row's pooled output."""
    model = randomized(builders.build_multiple_choice(builders.build_encoder(TINY)), seed=2)
    batch = encoder_batch()  # 3 rows: one question with 3 endings
    logits = keras.ops.convert_to_numpy(model({k: v[np.newaxis] for k, v in batch.items()}, training=False))
    pooled = model.encoder(batch, training=False)["pooled_output"]
    kernel, bias = model.head.get_weights()
    np.testing.assert_allclose(logits, (keras.ops.convert_to_numpy(pooled) @ kernel + bias).reshape(1, 3), atol=1e-5)
    two = {k: np.stack([v, v[::-1]]) for k, v in batch.items()}  # (2, 3, seq)
    assert model(two, training=False).shape == (2, 3)
