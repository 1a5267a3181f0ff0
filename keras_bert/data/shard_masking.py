"""Dynamic masked-LM masking in NumPy, for the shard reader (no TensorFlow).

`MaskedLMMasker` (`keras_bert/text/masked_lm_masker.py`) masks inside tf.data with TensorFlow's
stateless random ops; a reader that must run where TensorFlow is not installed (a JAX machine)
cannot call it. This is the same selection rule on NumPy arrays: per example (a row, or each
packed example of a row), `min(max_predictions_per_seq, max(1, round(n * masked_lm_prob)))` of
its `n` maskable tokens (or whole words, taken in random order while their pieces fit the
count), each `[MASK]` with probability `mask_token_rate`, a random id with
`random_token_rate`, else unchanged (decided once per word with whole words). Its draws are
NumPy's (`numpy.random.Generator`), so its masks differ from tf.data's; the statistics are the
same (tests/data/test_shard_masking.py checks them against `MaskedLMMasker`).
"""

import numpy as np


def mask_rows(ids, examples, rng, vocab_size, mask_id, unselectable_ids, max_predictions_per_seq,
              masked_lm_prob=0.15, mask_token_rate=0.8, random_token_rate=0.1, is_continuation=None):
    """Masks a batch of rows; returns the `MaskedLMMasker` outputs as NumPy arrays.

    Args:
        ids: int `[batch, seq]` token ids.
        examples: int `[batch, seq]`: the example each token belongs to (1, 2, ... in a packed
            row; the input mask in an unpacked one), 0 on padding. Counts are per example.
        rng: a `numpy.random.Generator` (the caller keys it by seed and step).
        vocab_size: random replacements are drawn from `[0, vocab_size)`.
        mask_id: the `[MASK]` id.
        unselectable_ids: ids never selected (`[CLS]`, `[SEP]`, `[PAD]`).
        max_predictions_per_seq: `P`, the width of the `masked_lm_*` outputs; caps each
            example's count (a packed row's examples were packed to fit `P` together).
        masked_lm_prob: share of maskable tokens selected.
        mask_token_rate: share of selected tokens replaced by `[MASK]`.
        random_token_rate: share replaced by a random id.
        is_continuation: bool `[vocab_size]` (the piece continues a word), or None; enables
            whole-word masking.

    Returns:
        dict of int32 `input_word_ids` `[batch, seq]` (masked), `masked_lm_positions` (ascending,
        0-padded) and `masked_lm_ids` `[batch, P]`, float32 `masked_lm_weights` `[batch, P]`.

    Example:
        >>> out = mask_rows(np.array([[101, 7592, 2088, 102, 0]]), np.array([[1, 1, 1, 1, 0]]),
        ...                 np.random.default_rng(0), 30522, 103, [0, 101, 102], 20)
        >>> out["masked_lm_positions"].shape
        (1, 20)
    """
    ids = np.asarray(ids, np.int32)
    examples = np.asarray(examples, np.int64)
    batch, seq = ids.shape
    width = int(max_predictions_per_seq)
    maskable = (examples > 0) & ~np.isin(ids, np.asarray(unselectable_ids, np.int32))
    columns = np.arange(seq)

    # Per (row, example): n maskable tokens -> BERT's count.
    groups = int(examples.max(initial=0)) + 1
    group_key = np.arange(batch)[:, None] * groups + examples  # [b, s]
    num_maskable = np.bincount(group_key[maskable], minlength=batch * groups)
    count = np.maximum(1, np.round(num_maskable.astype(np.float32) * np.float32(masked_lm_prob)))
    count = np.where(num_maskable > 0, np.minimum(count, width), 0).astype(np.int64)

    score = rng.random((batch, seq))  # the random order of candidates
    action = rng.random((batch, seq))  # [MASK] / random / keep, per token (or per word)
    if is_continuation is not None:
        previous_maskable = np.pad(maskable[:, :-1], ((0, 0), (1, 0)))
        starts = maskable & ~(np.asarray(is_continuation, bool)[ids] & previous_maskable)
        # Every piece takes the draws of its word's first piece (the last start before it).
        word_start = np.maximum.accumulate(np.where(starts, columns, 0), axis=1)
        score = np.take_along_axis(score, word_start, 1)
        action = np.take_along_axis(action, word_start, 1)
    # Sort each row by (example, score): an example's candidates in random order, a word's
    # pieces together (equal scores, stable sort), the unselectable after them.
    key = examples * 4.0 + np.where(maskable, score, 3.0)
    order = np.argsort(key, axis=1, kind="stable")
    sorted_maskable = np.take_along_axis(maskable, order, 1)
    sorted_group = np.take_along_axis(group_key, order, 1)
    taken = np.cumsum(sorted_maskable, axis=1)  # running count along the row
    first = np.ones((batch, seq), bool)
    first[:, 1:] = sorted_group[:, 1:] != sorted_group[:, :-1]
    # Restart the count at each example: subtract what the row had taken before it.
    taken = taken - np.maximum.accumulate(np.where(first, taken - sorted_maskable, 0), axis=1)
    if is_continuation is not None:  # a word fits if the count at its last piece fits
        sorted_word = np.take_along_axis(word_start + group_key * seq, order, 1)
        last = np.ones((batch, seq), bool)
        last[:, :-1] = sorted_word[:, :-1] != sorted_word[:, 1:]
        at_end = np.where(last, taken, np.iinfo(np.int64).max)
        taken = np.minimum.accumulate(at_end[:, ::-1], axis=1)[:, ::-1]
    chosen = sorted_maskable & (taken <= count[sorted_group])
    selected = np.zeros((batch, seq), bool)
    np.put_along_axis(selected, order, chosen, 1)

    # Selected positions, ascending, into `width` slots (never more: the counts fit).
    slot = np.cumsum(selected, axis=1) - 1
    keep = selected & (slot < width)
    rows, cols = np.nonzero(keep)
    positions = np.zeros((batch, width), np.int32)
    weights = np.zeros((batch, width), np.float32)
    positions[rows, slot[rows, cols]] = cols
    weights[rows, slot[rows, cols]] = 1.0
    targets = ids[rows, cols]
    masked_ids = np.zeros((batch, width), np.int32)
    masked_ids[rows, slot[rows, cols]] = targets
    draw = action[rows, cols]
    random_ids = rng.integers(0, vocab_size, size=len(rows), dtype=np.int32)
    new = np.where(draw < mask_token_rate, mask_id,
                   np.where(draw < mask_token_rate + random_token_rate, random_ids, targets))
    out_ids = ids.copy()
    out_ids[rows, cols] = new
    return {"input_word_ids": out_ids, "masked_lm_positions": positions,
            "masked_lm_ids": masked_ids, "masked_lm_weights": weights}
