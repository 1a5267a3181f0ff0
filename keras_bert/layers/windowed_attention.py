"""Scaled dot-product attention over all keys (global) or a sliding window computed band by band.

`sliding_window_attention` never forms the `(seq, seq)` score matrix: it cuts the sequence into
blocks of `half_window` rows; a block's queries see only its own and its two neighbour blocks' keys
(`3 * half_window` of them), which hold every key within `half_window` positions. Scores are then
`(batch, heads, blocks, half_window, 3 * half_window)`: memory and time O(seq * window), not O(seq^2).
`global_attention(query_chunk=)` keeps O(seq^2) time but holds scores for one chunk of queries at a
time (`keras.ops.map` in training, a `fori_loop` otherwise): at 8,192 tokens, 4 heads, 1,024-query
chunks on TensorFlow, ~8x less added peak memory and ~2x faster than the whole score matrix (tools/_modernbert_parity.py measures it);
long sequences take smaller chunks (`query_chunk_size`), so a chunk stays within 8 MiB per head.
"""

import os

import keras
import numpy as np
from keras import ops

_NEGATIVE = -1e30  # a masked score: exp(-1e30 - max) is exactly 0 in float32
# A chunk holds at most this many (query, key) scores per head (8 MiB in float32): 8,192 tokens go 256
# queries at a time. ModernBERT-base's 8,192-token forward: added peak 758 -> ~400 MiB (benchmark.py family).
_SCORES_PER_CHUNK = 2 ** 21
_MIN_CHUNK = 128


def _masked_softmax(scores, keep):
    """Softmax over the last axis where `keep`, in float32 whatever the scores' dtype (a float16 -1e30
    would be -inf, and a row with no key kept, a padded query's, NaN)."""
    probs = ops.softmax(ops.where(keep, ops.cast(scores, "float32"), _NEGATIVE), axis=-1)
    return ops.cast(probs, scores.dtype)


def fused_attention_enabled(dropout_active):
    """Whether attention goes through `keras.ops.dot_product_attention` (cuDNN / flash attention on a JAX
    GPU, Splash on a TPU): on the JAX backend on an accelerator, when no attention dropout is applied (the op
    has none). TensorFlow has no fused kernel and keeps the explicit softmax, as do CPUs (their result equals
    it: tests/layers/test_windowed_attention.py). `KERAS_BERT_ATTENTION=fused` (JAX) or `explicit` overrides."""
    choice = os.environ.get("KERAS_BERT_ATTENTION", "auto")
    if dropout_active or choice == "explicit" or keras.config.backend() != "jax":
        return False
    if choice == "fused":
        return True
    import jax  # pylint: disable=import-outside-toplevel  (the JAX backend is running)

    return jax.devices()[0].platform in ("gpu", "tpu")


def fused_attention(query, key, value, keep):
    """`keras.ops.dot_product_attention` of `query`, `key`, `value` `(batch, seq, heads, head_size)` (query
    already scaled) where `keep` (bool, broadcastable to `(batch, heads, queries, keys)`); out like `query`."""
    return ops.dot_product_attention(query, key, value, mask=keep, scale=1.0)


def attention_keep(padding_mask, query_ids=None, key_ids=None):
    """bool `(batch, 1, 1 or queries, keys)`: unpadded keys, of the query's own example with `query_ids` /
    `key_ids` (packed rows). A padded query (id 0) keeps the padded keys, so that no row is fully masked
    (a fused kernel may return NaN there, and NaN times a zero probability is NaN)."""
    keys = ops.expand_dims(ops.cast(padding_mask, "bool"), (1, 2))  # (batch, 1, 1, keys)
    if query_ids is None:
        return keys
    padded_query = ops.expand_dims(ops.expand_dims(ops.equal(ops.cast(query_ids, "int32"), 0), -1), 1)
    same = same_example(ops.cast(query_ids, "int32"), ops.cast(key_ids, "int32"))  # (batch, 1, queries, keys)
    return ops.logical_and(same, ops.logical_or(keys, padded_query))


def same_example(query_ids, key_ids):
    """bool `(batch, 1, ..., queries, keys)`: query and key belong to one packed example (`input_example_ids`
    `(batch, ..., queries)` and `(batch, ..., keys)`; padding's 0 never matches a real key: `padding_mask`)."""
    return ops.expand_dims(ops.equal(ops.expand_dims(query_ids, -1), ops.expand_dims(key_ids, -2)), 1)


def global_attention(query, key, value, padding_mask, dropout=None, training=None, query_chunk=None,
                     example_ids=None):
    """Attention of every query to every unpadded key; `query`, `key`, `value` `(batch, heads, seq,
    head_size)` (query already scaled), `padding_mask` int `(batch, seq)`; out like `query`. With
    `query_chunk` (and no `dropout`) the queries go `query_chunk` at a time (one chunk if seq is shorter),
    fewer when a chunk would hold over 2**21 scores per head (long sequences: at most 8 MiB per head).
    With `example_ids` int `(batch, seq)` (packed rows) a query sees only its own example's keys."""
    if fused_attention_enabled(dropout is not None and training):
        keep = attention_keep(padding_mask, example_ids, example_ids)
        transpose = (0, 2, 1, 3)  # (batch, heads, seq, d) <-> (batch, seq, heads, d)
        return ops.transpose(fused_attention(*(ops.transpose(x, transpose) for x in (query, key, value)), keep),
                             transpose)
    keep = ops.expand_dims(ops.cast(padding_mask, "bool"), (1, 2))  # (batch, 1, 1, seq)
    key_ids = None if example_ids is None else ops.cast(example_ids, "int32")

    def attend(queries, query_ids=None):
        scores = ops.einsum("bhqd,bhkd->bhqk", queries, key)  # (batch, heads, queries, seq)
        allowed = keep if query_ids is None else ops.logical_and(keep, same_example(query_ids, key_ids))
        probs = _masked_softmax(scores, allowed)
        if dropout is not None:
            probs = dropout(probs, training=training)
        return ops.einsum("bhqk,bhkd->bhqd", probs, value)  # (batch, heads, queries, head_size)

    if query_chunk is None or dropout is not None:
        return attend(query, key_ids)
    seq = ops.shape(query)[2]
    size = query_chunk_size(seq, query_chunk)
    pad_after = (size - seq % size) % size
    chunks = (seq + pad_after) // size
    batch, heads, head_size = ops.shape(query)[0], query.shape[1], query.shape[-1]
    queries = ops.reshape(ops.pad(query, [[0, 0], [0, 0], [0, pad_after], [0, 0]]),
                          (batch, heads, chunks, size, head_size))  # (batch, heads, chunks, size, d)
    queries = ops.transpose(queries, (2, 0, 1, 3, 4))  # (chunks, batch, heads, size, d)
    query_ids = None if key_ids is None else ops.transpose(  # (chunks, batch, size)
        ops.reshape(ops.pad(key_ids, [[0, 0], [0, pad_after]]), (batch, chunks, size)), (1, 0, 2))

    if training:  # ops.map: its gradient compiles under XLA (a while loop's needs a fixed trip count there)
        context = (ops.map(attend, queries) if query_ids is None
                   else ops.map(lambda chunk: attend(*chunk), (queries, query_ids)))  # (chunks, batch, heads, size, d)
    else:  # one loop selecting into one buffer, which TFLite converts (ops.map's TensorList needs a static
        # element shape, which a dynamic batch lacks); the select adds O(seq * d) to each chunk's O(size * seq * d)
        def attend_chunk(i, context):
            chunk = attend(ops.take(queries, i, axis=0),
                           None if query_ids is None else ops.take(query_ids, i, axis=0))
            return ops.where(ops.reshape(ops.equal(ops.arange(chunks), i), (-1, 1, 1, 1, 1)),
                             ops.expand_dims(chunk, 0), context)

        context = ops.fori_loop(0, chunks, attend_chunk, ops.zeros_like(queries))
    context = ops.reshape(ops.transpose(context, (1, 2, 0, 3, 4)), (batch, heads, chunks * size, head_size))
    return context[:, :, :seq, :]  # (batch, heads, seq, head_size)


def query_chunk_size(seq, query_chunk):
    """Queries per chunk: `query_chunk`, at most `seq`, and fewer on long sequences so that a chunk holds
    at most 2**21 scores per head (but >= 128 queries). A static `seq` (JAX, PyTorch, a fixed-shape graph)
    gives a Python int (JAX needs static pad widths); a dynamic one a tensor."""
    if isinstance(seq, int):
        return min(int(query_chunk), seq, max(_MIN_CHUNK, _SCORES_PER_CHUNK // seq))
    budget = ops.maximum(_MIN_CHUNK, ops.floor_divide(_SCORES_PER_CHUNK, seq))
    return ops.minimum(ops.minimum(int(query_chunk), seq), budget)


def _blocks_with_neighbours(x, block, blocks, pad_after):
    """`x` `(..., seq, d)` -> `(..., blocks, 3 * block, d)`: block i's rows with blocks i-1 and i+1
    around them (zeros beyond the ends)."""
    widths = [[0, 0]] * (len(x.shape) - 2) + [[block, pad_after + block], [0, 0]]
    x = ops.pad(x, widths)  # (..., (blocks + 2) * block, d)
    x = ops.reshape(x, tuple(ops.shape(x)[:-2]) + (blocks + 2, block, x.shape[-1]))  # (..., blocks + 2, block, d)
    return ops.concatenate([x[..., :-2, :, :], x[..., 1:-1, :, :], x[..., 2:, :, :]], axis=-2)


def band_pattern(half_window):
    """`(block, 3 * block)` bool: query row r of a block may see neighbourhood key c, i.e.
    |key position - query position| = |c - block - r| <= half_window (block = half_window)."""
    rows = np.arange(half_window)[:, None]
    cols = np.arange(3 * half_window)[None, :]
    return np.abs(cols - half_window - rows) <= half_window


def sliding_window_attention(query, key, value, padding_mask, half_window, dropout=None, training=None,
                             example_ids=None):
    """Attention of each query to the unpadded keys at most `half_window` positions away (Hugging
    Face's bidirectional sliding window: |q - k| <= local_attention // 2); arguments and output as
    `global_attention` (with `example_ids`, only the window's keys of the query's own example). Memory
    and time O(seq * half_window).

    Example:
        >>> q = keras.ops.ones((1, 2, 10, 4))
        >>> sliding_window_attention(q, q, q, keras.ops.ones((1, 10), "int32"), 3).shape
        (1, 2, 10, 4)
    """
    block = int(half_window)
    seq = ops.shape(query)[2]
    pad_after = (block - seq % block) % block  # rows to fill the last block
    blocks = (seq + pad_after) // block
    batch, heads, head_size = ops.shape(query)[0], query.shape[1], query.shape[-1]
    queries = ops.reshape(ops.pad(query, [[0, 0], [0, 0], [0, pad_after], [0, 0]]),
                          (batch, heads, blocks, block, head_size))  # (batch, heads, blocks, block, d)
    keys = _blocks_with_neighbours(key, block, blocks, pad_after)  # (batch, heads, blocks, 3 block, d)
    values = _blocks_with_neighbours(value, block, blocks, pad_after)
    scores = ops.einsum("bhnqd,bhnkd->bhnqk", queries, keys)  # (batch, heads, blocks, block, 3 block)
    # (expand_dims, squeeze: TFLite has no builtin for a `[:, None]` slice)
    key_mask = _blocks_with_neighbours(ops.expand_dims(ops.cast(padding_mask, "int32"), -1), block, blocks,
                                       pad_after)[..., 0]  # (batch, blocks, 3 block)
    keep = ops.logical_and(ops.cast(ops.expand_dims(key_mask, (1, 3)), "bool"),  # (batch, 1, blocks, 1, 3 block)
                           ops.convert_to_tensor(band_pattern(block)))  # (block, 3 block)
    if example_ids is not None:  # packed rows: the band's keys of the query's own example only
        ids = ops.cast(example_ids, "int32")
        query_ids = ops.reshape(ops.pad(ids, [[0, 0], [0, pad_after]]), (batch, blocks, block))
        key_ids = _blocks_with_neighbours(ops.expand_dims(ids, -1), block, blocks, pad_after)[..., 0]  # (b, n, 3 block)
        keep = ops.logical_and(keep, same_example(query_ids, key_ids))  # (batch, 1, blocks, block, 3 block)
    probs = _masked_softmax(scores, keep)
    if dropout is not None:
        probs = dropout(probs, training=training)
    context = ops.einsum("bhnqk,bhnkd->bhnqd", probs, values)  # (batch, heads, blocks, block, d)
    context = ops.reshape(context, (batch, heads, blocks * block, head_size))
    return context[:, :, :seq, :]  # (batch, heads, seq, head_size)
