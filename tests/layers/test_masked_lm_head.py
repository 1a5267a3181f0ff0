"""MaskedLMHead: gather, transform, project onto the tied embeddings; padded slots stay apart."""

import numpy as np

from keras_bert.layers import BertEmbeddings, MaskedLMHead
from tests.layers.layer_checks import to_numpy


def _head_and_embeddings():
    embeddings = BertEmbeddings(vocab_size=30, hidden_size=8, dropout_rate=0.0)
    embeddings(np.zeros((1, 4), "int32"))
    return MaskedLMHead(30, 8, embedding_layer=embeddings), embeddings


def test_mlm_head_gathers_then_projects_onto_tied_embeddings():
    head, embeddings = _head_and_embeddings()
    rng = np.random.default_rng(0)
    sequence = rng.normal(size=(2, 6, 8)).astype("float32")
    positions = np.array([[1, 3], [5, 0]], "int32")
    logits = to_numpy(head(sequence, positions))
    assert logits.shape == (2, 2, 30)
    # Recompute by hand from the gathered vectors.
    gathered = np.take_along_axis(sequence, positions[:, :, None], axis=1)
    h = gathered @ to_numpy(head.transform.kernel) + to_numpy(head.transform.bias)
    h = to_numpy(head.activation(h))
    h = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-12)
    h = h * to_numpy(head.layer_norm.gamma) + to_numpy(head.layer_norm.beta)
    expected = h @ to_numpy(embeddings.embedding_table).T + to_numpy(head.output_bias)
    np.testing.assert_allclose(logits, expected, atol=1e-4)
    # Tied: the head owns no copy of the embedding matrix.
    assert all(w.shape != (30, 8) for w in head.weights)


def test_mlm_head_padded_prediction_slots_do_not_affect_real_slots():
    head, _ = _head_and_embeddings()
    sequence = np.random.default_rng(1).normal(size=(1, 6, 8)).astype("float32")
    a = to_numpy(head(sequence, np.array([[2, 4, 0, 0]], "int32")))
    b = to_numpy(head(sequence, np.array([[2, 4, 5, 1]], "int32")))
    np.testing.assert_allclose(a[:, :2], b[:, :2], atol=1e-6)


def test_mlm_head_maps_hidden_to_a_narrower_embedding_width():
    """ELECTRA's generator head: the transform maps hidden_size (8) -> embedding_size (4), the width of the
    tied word embeddings; embedding_size is in its config."""
    embeddings = BertEmbeddings(vocab_size=30, hidden_size=4, dropout_rate=0.0)
    embeddings(np.zeros((1, 4), "int32"))
    head = MaskedLMHead(30, 8, embedding_layer=embeddings, embedding_size=4)
    sequence = np.random.default_rng(2).normal(size=(2, 6, 8)).astype("float32")
    assert to_numpy(head(sequence, np.array([[1, 3], [5, 0]], "int32"))).shape == (2, 2, 30)
    assert (head.transform.kernel.shape, head.layer_norm.gamma.shape) == ((8, 4), (4,))
    assert MaskedLMHead.from_config(head.get_config()).embedding_size == 4
