"""ModernBertMaskedLMHead: tied to the embeddings, every position or gathered ones, the one-line refusal."""

import numpy as np
import pytest

from keras_bert.layers import ModernBertEmbeddings, ModernBertMaskedLMHead, ModernBertPredictionHead
from tests.layers.layer_checks import to_numpy

IDS = np.array([[3, 4, 5, 0], [6, 7, 0, 0]], "int32")


def test_logits_are_the_head_times_the_embedding_table_plus_bias():
    embeddings, transform = ModernBertEmbeddings(20, 8), ModernBertPredictionHead(8)
    head = ModernBertMaskedLMHead(20, prediction_head=transform, embedding_layer=embeddings)
    x = embeddings(IDS)
    logits = to_numpy(head(x))
    assert logits.shape == (2, 4, 20) and [w.name for w in head.weights] == ["bias"]  # owns only the bias
    expected = to_numpy(transform(x)) @ to_numpy(embeddings.embedding_table).T
    np.testing.assert_allclose(logits, expected, atol=1e-5)
    positions = np.array([[1, 2], [0, 0]], "int32")
    np.testing.assert_allclose(to_numpy(head(x, positions)), np.take_along_axis(logits, positions[..., None], 1),
                               atol=1e-5)
    assert ModernBertMaskedLMHead(20, decoder_bias=False).get_config()["decoder_bias"] is False


def test_without_the_encoder_layers_it_says_what_to_pass():
    with pytest.raises(ValueError, match="pass the ModernBertEncoder's `.head` and `.embeddings`"):
        ModernBertMaskedLMHead(20)(np.ones((1, 2, 8), "float32"))
