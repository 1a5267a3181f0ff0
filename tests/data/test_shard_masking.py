"""shard_masking.mask_rows: the NumPy masker selects as many tokens as `MaskedLMMasker`, splits them
80/10/10, keeps whole words together and counts each packed example on its own."""

import numpy as np
import pytest

from keras_bert.data.shard_masking import mask_rows
from keras_bert.text.masked_lm_masker import MaskedLMMasker
from tests.text.test_masked_lm_masker import _pairs

PAD, CLS, SEP, MASK, VOCAB = 0, 101, 102, 103, 30522
SETTINGS = dict(vocab_size=VOCAB, mask_id=MASK, unselectable_ids=[PAD, CLS, SEP], max_predictions_per_seq=20)


def _rows(count, seq, seed):
    """`test_masked_lm_masker`'s random `[CLS] A [SEP] B [SEP] [PAD]...` rows and their input masks."""
    ids = _pairs(count, seq, seed)
    return ids, (ids != PAD).astype(np.int32)


def _check_outputs(ids, out):
    """Positions ascending with their original ids as targets; only they changed."""
    weights = out["masked_lm_weights"] > 0
    rows = np.nonzero(weights)[0]
    positions = out["masked_lm_positions"][weights]
    assert (ids[rows, positions] == out["masked_lm_ids"][weights]).all()
    padded = np.where(weights, out["masked_lm_positions"], 10**6 + np.arange(weights.shape[1]))
    assert (np.diff(padded, axis=1) > 0).all()
    changed = out["input_word_ids"] != ids
    assert not changed[~np.isin(np.arange(ids.shape[1])[None, :].repeat(len(ids), 0),
                                out["masked_lm_positions"]) | ~weights.any(1)[:, None]].any()
    return rows, positions


def test_counts_equal_the_tf_maskers_and_the_split_is_80_10_10():
    ids, mask = _rows(3000, 64, 0)
    out = mask_rows(ids, mask, np.random.default_rng(1), **SETTINGS)
    reference = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP], 20)(ids, seed=[1, 2])
    np.testing.assert_array_equal(out["masked_lm_weights"].sum(1), reference["masked_lm_weights"].numpy().sum(1))
    rows, positions = _check_outputs(ids, out)
    assert not np.isin(ids[rows, positions], [PAD, CLS, SEP]).any()
    new = out["input_word_ids"][rows, positions]
    shares = np.mean(new == MASK), np.mean((new != MASK) & (new != ids[rows, positions]))
    assert shares[0] == pytest.approx(0.8, abs=0.01) and shares[1] == pytest.approx(0.1, abs=0.01)
    # Positions are chosen as often at the front as tf.data's are.
    chosen = out["masked_lm_positions"][out["masked_lm_weights"] > 0]
    assert abs(np.mean(chosen < 16) - np.mean(reference["masked_lm_positions"].numpy()[
        reference["masked_lm_weights"].numpy() > 0] < 16)) < 0.02


def test_whole_words_go_together_at_the_tf_maskers_rate():
    ids, mask = _rows(2000, 64, 2)
    is_continuation = np.zeros(VOCAB, bool)
    is_continuation[20000:] = True  # ids >= 20000 continue a word ("##...")
    out = mask_rows(ids, mask, np.random.default_rng(3), is_continuation=is_continuation, **SETTINGS)
    rows, positions = _check_outputs(ids, out)
    selected = np.zeros(ids.shape, bool)
    selected[rows, positions] = True
    # A continuation piece after a maskable piece is selected exactly when the piece before it is.
    follows = is_continuation[ids[:, 1:]] & ~np.isin(ids[:, :-1], [PAD, CLS, SEP])
    assert (selected[:, 1:][follows] == selected[:, :-1][follows]).all()
    reference = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP], 20, is_continuation=list(is_continuation))(
        ids, seed=[4, 5])
    assert out["masked_lm_weights"].sum() == pytest.approx(reference["masked_lm_weights"].numpy().sum(), rel=0.02)
    words = out["input_word_ids"][:, 1:][follows & selected[:, 1:]] == MASK
    previous = out["input_word_ids"][:, :-1][follows & selected[:, 1:]] == MASK
    assert (words == previous).mean() > 0.97  # [MASK] / random / keep once per word (random ids may be MASK)


def test_packed_examples_are_counted_each_on_its_own():
    ids = np.full([1, 24], 5000, np.int32)
    ids[0, [0, 9, 10, 23]] = [CLS, SEP, CLS, SEP]
    examples = np.array([[1] * 10 + [2] * 14])  # 8 and 12 maskable tokens
    out = mask_rows(ids, examples, np.random.default_rng(0), **dict(SETTINGS, masked_lm_prob=0.25))
    positions = out["masked_lm_positions"][0][out["masked_lm_weights"][0] > 0]
    assert (np.sum(positions < 10), np.sum(positions >= 10)) == (2, 3)  # round(8 / 4), round(12 / 4)
