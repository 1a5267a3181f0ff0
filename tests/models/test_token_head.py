"""models/token_head.py: logits for every token (dropout + dense), not only [CLS]."""

import keras
import numpy as np

from keras_bert.models import TokenHead


def test_every_token_gets_its_own_logits():
    head = TokenHead(4)
    features = np.random.default_rng(1).normal(size=(2, 5, 16)).astype("float32")
    logits = keras.ops.convert_to_numpy(head(features, training=False))
    assert logits.shape == (2, 5, 4) and not head.pooled_only
    kernel, bias = head.get_weights()
    np.testing.assert_allclose(logits[1, 3], features[1, 3] @ kernel + bias, atol=1e-5)
    assert TokenHead.hf_task({}, "config.json") == ("token_classification", True)
