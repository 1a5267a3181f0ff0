"""Global and banded sliding-window attention equal a dense masked reference; the band never forms seq x seq."""

import keras
import numpy as np
import pytest

from keras_bert.layers.windowed_attention import (
    band_pattern, fused_attention_enabled, global_attention, query_chunk_size, sliding_window_attention)
from tests.layers.layer_checks import to_numpy


def dense_reference(q, k, v, mask, half_window):
    positions = np.arange(q.shape[2])
    keep = (np.abs(positions[:, None] - positions[None]) <= half_window)[None, None] & (mask[:, None, None] > 0)
    scores = np.where(keep, np.einsum("bhqd,bhkd->bhqk", q, k), -np.inf)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    return (probs / probs.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("seq,half_window", [(5, 8), (13, 4), (37, 1), (40, 8)])
def test_sliding_window_equals_the_masked_dense_attention(seq, half_window):
    rng = np.random.default_rng(seq)
    q, k, v = (rng.normal(size=(2, 3, seq, 4)).astype("float32") for _ in range(3))
    mask = np.ones((2, seq), "int32")
    mask[1, max(1, seq - 4):] = 0  # padding on the right
    real = mask.astype(bool)[:, None, :, None]
    out = to_numpy(sliding_window_attention(q, k, v, mask, half_window))
    expected = dense_reference(q, k, v, mask, half_window)
    assert np.abs(np.where(real, out - expected, 0)).max() < 1e-5
    for query_chunk in (None, 4, 64):  # whole matrix; chunks (the last one padded); one chunk
        for training in (False, True):  # the chunks' loop (inference) and ops.map (training)
            full = to_numpy(global_attention(q, k, v, mask, training=training, query_chunk=query_chunk))
            assert np.abs(np.where(real, full - dense_reference(q, k, v, mask, seq), 0)).max() < 1e-5


def test_band_pattern_holds_exactly_the_window():
    band = band_pattern(2)  # block 2: query row r sees neighbourhood keys r..r+4
    assert band.shape == (2, 6) and band.sum(axis=1).tolist() == [5, 5]
    assert band[0].tolist() == [True] * 5 + [False] and band[1].tolist() == [False] + [True] * 5


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="reads a TensorFlow graph's shapes")
def test_no_tensor_of_the_banded_graph_is_seq_by_seq():
    """O(seq * window): at seq 512, window +-8, no intermediate has two axes of 512 (the dense mask would)."""
    import tensorflow as tf

    seq = 512
    spec = tf.TensorSpec((1, 2, seq, 4), tf.float32)
    graph = tf.function(lambda q, m: sliding_window_attention(q, q, q, m, 8)).get_concrete_function(
        spec, tf.TensorSpec((1, seq), tf.int32)).graph
    shapes = [o.shape.as_list() for op in graph.get_operations() for o in op.outputs if o.shape.rank]
    assert max(np.prod([d for d in s if d]) for s in shapes) <= 1 * 2 * 64 * 8 * 24  # the (blocks, 8, 24) scores
    assert not [s for s in shapes if sum(d is not None and d >= seq for d in s) >= 2]


def test_long_sequences_take_fewer_queries_per_chunk_and_still_equal_the_whole_matrix():
    # At most 2**21 scores per head in a chunk: ModernBERT's 1,024-query chunks hold up to 2,048 tokens.
    assert [query_chunk_size(seq, 1024) for seq in (300, 1024, 2048, 4096, 8192, 65536)] == [300, 1024, 1024, 512,
                                                                                               256, 128]
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(1, 1, 4096, 4)).astype("float32") for _ in range(3))
    mask = (np.arange(4096) < 3001).astype("int32")[None]
    chunked = to_numpy(global_attention(q, k, v, mask, query_chunk=1024))  # 8 chunks of 512
    np.testing.assert_allclose(chunked, to_numpy(global_attention(q, k, v, mask)), atol=1e-6)


def test_packed_rows_attend_within_their_own_example_on_every_path():
    """`example_ids` (1..k, 0 on padding): the band, the whole score matrix and each query chunk keep to the
    query's own example, as the dense reference of each example alone does."""
    rng = np.random.default_rng(2)
    q, k, v = (rng.normal(size=(2, 2, 13, 4)).astype("float32") for _ in range(3))
    example_ids = np.array([[1] * 5 + [2] * 4 + [3] * 3 + [0], [1] * 6 + [2] * 7], "int32")
    mask = (example_ids > 0).astype("int32")
    outputs = [(2, sliding_window_attention(q, k, v, mask, 2, example_ids=example_ids))]
    for query_chunk in (None, 4, 64):  # whole matrix; chunks (the last one padded); one chunk
        outputs.append((13, global_attention(q, k, v, mask, query_chunk=query_chunk, example_ids=example_ids)))
    for half_window, out in outputs:
        for row, example in ((0, 1), (0, 2), (0, 3), (1, 1), (1, 2)):
            where = np.flatnonzero(example_ids[row] == example)
            alone = dense_reference(*(x[row:row + 1, :, where] for x in (q, k, v)),
                                    np.ones((1, where.size), "int32"), half_window)
            np.testing.assert_allclose(to_numpy(out)[row:row + 1, :, where], alone, atol=1e-5)


def test_fused_attention_equals_the_explicit_softmax_on_real_tokens(monkeypatch):
    """`KERAS_BERT_ATTENTION=fused` (keras.ops.dot_product_attention, JAX only) against the explicit softmax:
    BERT's block (inference and training layout, padded and packed) and ModernBERT's global attention."""
    from keras_bert.layers.transformer_encoder_block import TransformerEncoderBlock

    rng = np.random.default_rng(0)
    block = TransformerEncoderBlock(hidden_size=16, num_heads=2, intermediate_size=32, dropout_rate=0.0,
                                    attention_dropout_rate=0.0)
    x = rng.normal(size=(2, 7, 16)).astype("float32")
    q, k, v = (rng.normal(size=(2, 2, 7, 8)).astype("float32") for _ in range(3))
    padding = np.array([[1] * 7, [1] * 4 + [0] * 3], "int32")
    ids = np.array([[1, 1, 1, 2, 2, 2, 2], [1, 1, 2, 2, 0, 0, 0]], "int32")
    outputs = {}
    for choice in ("explicit", "fused"):
        monkeypatch.setenv("KERAS_BERT_ATTENTION", choice)
        outputs[choice] = [to_numpy(y) for y in (
            block(x, padding), block(x, padding, training=True), block(x, padding, example_ids=ids))] + [
            np.transpose(to_numpy(y), (0, 2, 1, 3)) for y in (  # (batch, seq, heads, d)
                global_attention(q, k, v, padding), global_attention(q, k, v, padding, example_ids=ids))]
        assert fused_attention_enabled(False) == (choice == "fused" and keras.config.backend() == "jax")
    real = padding.astype(bool)
    for explicit, fused in zip(outputs["explicit"], outputs["fused"]):
        np.testing.assert_allclose(fused[real], explicit[real], atol=2e-5)
