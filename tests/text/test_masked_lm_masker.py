"""MaskedLMMasker: BERT's selection count, 80/10/10 split, determinism, whole words.

The measurement behind writing it with stateless ops instead of tensorflow-text's
`RandomItemSelector` + `MaskValuesChooser` (numbers in keras_bert/text/masked_lm_masker.py):

    tf.random.set_seed(0)
    selector = text.RandomItemSelector(20, 0.15, unselectable_ids=[0, 101, 102])
    chooser = text.MaskValuesChooser(30522, 103, 0.8, 0.1)
    ds = tf.data.Dataset.range(200).map(lambda i: tf.random.stateless_uniform(
        [32, 126], [i, 0], 1000, 30000, tf.int32))
    ds = ds.map(lambda x: text.mask_language_model(tf.RaggedTensor.from_tensor(x), selector,
                                                   chooser)[1].to_tensor(-1, shape=[32, 20]),
                num_parallel_calls=tf.data.AUTOTUNE)
    # run twice -> different masked positions in 127 of 200 batches (4 of 200 without
    # num_parallel_calls); the rounding-up is checked below.
"""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.text.masked_lm_masker import MaskedLMMasker

PAD, CLS, SEP, MASK, VOCAB = 0, 101, 102, 103, 30522


def _pairs(rows, seq, seed):
    """Random `[CLS] A [SEP] B [SEP] [PAD]...` rows (ids 1000..29999), lengths 8..seq."""
    rng = np.random.RandomState(seed)
    ids = np.zeros([rows, seq], np.int32)
    for r in range(rows):
        length = rng.randint(8, seq + 1)
        ids[r, :length] = rng.randint(1000, 30000, size=length)
        split = rng.randint(2, length - 2)
        ids[r, 0], ids[r, split], ids[r, length - 1] = CLS, SEP, SEP
    return ids


@pytest.fixture(scope="module")
def big_batch():
    ids = _pairs(12_000, 128, seed=0)
    masker = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP], max_predictions_per_seq=128)
    out = {k: v.numpy() for k, v in masker(ids, seed=[7, 0]).items()}
    return ids, out


def test_selection_count_and_share(big_batch):
    ids, out = big_batch
    maskable = ~np.isin(ids, [PAD, CLS, SEP])
    n = maskable.sum(1)
    selected = out["masked_lm_weights"].sum(1).astype(int)
    expected = np.array([max(1, round(k * 0.15)) for k in n])  # BERT's count (banker's round)
    np.testing.assert_array_equal(selected, expected)
    assert selected.sum() >= 100_000
    assert abs(selected.sum() / n.sum() - 0.15) < 0.005


def test_80_10_10_split_and_targets(big_batch):
    ids, out = big_batch
    weights = out["masked_lm_weights"].astype(bool)
    rows = np.nonzero(weights)[0]
    positions = out["masked_lm_positions"][weights]
    original = ids[rows, positions]
    new = out["input_word_ids"][rows, positions]
    np.testing.assert_array_equal(out["masked_lm_ids"][weights], original)
    mask_share = np.mean(new == MASK)
    same_share = np.mean(new == original)
    random_share = np.mean((new != MASK) & (new != original))
    assert abs(mask_share - 0.8) < 0.01, mask_share
    assert abs(same_share - 0.1) < 0.01, same_share
    assert abs(random_share - 0.1) < 0.01, random_share
    # Special tokens and padding are never selected; nothing else changes.
    assert not np.isin(original, [PAD, CLS, SEP]).any()
    changed = np.zeros_like(ids, bool)
    changed[rows, positions] = True
    np.testing.assert_array_equal(out["input_word_ids"][~changed], ids[~changed])
    # Padded prediction slots: position 0, id 0, weight 0; real ones ascending.
    assert (out["masked_lm_positions"][~weights] == 0).all()
    assert (out["masked_lm_ids"][~weights] == 0).all()
    for row in range(100):
        real = out["masked_lm_positions"][row][weights[row]]
        assert (np.diff(real) > 0).all()


def test_same_seed_same_masks_next_epoch_different():
    ids = _pairs(64, 128, seed=1)
    masker = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP])
    epoch0 = masker(ids, seed=[3, 0])
    again = masker(ids, seed=[3, 0])
    epoch1 = masker(ids, seed=[3, 1])
    for key in epoch0:
        np.testing.assert_array_equal(epoch0[key].numpy(), again[key].numpy())
    differ = np.any(epoch0["masked_lm_positions"].numpy() != epoch1["masked_lm_positions"].numpy(), 1)
    assert differ.mean() > 0.95


def test_cap_and_tiny_inputs():
    masker = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP], max_predictions_per_seq=5)
    ids = np.array([[CLS] + list(range(1000, 1126)) + [SEP],  # 126 maskable -> 19, capped to 5
                    [CLS, 1000, SEP, 1001, SEP] + [PAD] * 123,  # 2 maskable -> max(1, 0) = 1
                    [CLS, SEP] + [PAD] * 126], np.int32)  # nothing maskable -> 0
    out = masker(ids, seed=[0, 0])
    np.testing.assert_array_equal(out["masked_lm_weights"].numpy().sum(1), [5, 1, 0])
    assert out["masked_lm_positions"].shape == (3, 5)


def test_max_predictions_wider_than_sequence():
    masker = MaskedLMMasker(VOCAB, MASK, [PAD, CLS, SEP], max_predictions_per_seq=12, masked_lm_prob=1.0)
    out = masker(np.array([[CLS, 1000, 1001, 1002, SEP, PAD]], np.int32), seed=[0, 0])
    np.testing.assert_array_equal(out["masked_lm_positions"].numpy()[0], [1, 2, 3] + [0] * 9)


def test_whole_word_masking_selects_whole_words(shakespeare_files, minilm_dir):
    from keras_bert.text.tokenizer import Tokenizer

    tokenizer = Tokenizer(f"{minilm_dir}/vocab.txt")
    with open(shakespeare_files[0], encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()][:3000]
    pieces = tokenizer.tokenize(tf.constant(lines))  # [lines, (pieces)]
    ids = tf.concat([tf.fill([len(lines), 1], CLS), pieces[:, :40].to_tensor(shape=[len(lines), 40]),
                     tf.zeros([len(lines), 1], tf.int32)], 1).numpy()
    for row in ids:  # [CLS] text [SEP] [PAD]...
        row[np.count_nonzero(row)] = SEP
    masker = MaskedLMMasker.from_tokenizer(tokenizer, max_predictions_per_seq=42, whole_word_masking=True)
    out = {k: v.numpy() for k, v in masker(ids, seed=[1, 2]).items()}
    is_continuation = np.array([t.startswith("##") for t in tokenizer.vocab])
    selected = np.zeros_like(ids, bool)
    for row, (positions, weights) in enumerate(zip(out["masked_lm_positions"], out["masked_lm_weights"])):
        selected[row, positions[weights > 0]] = True
    continuation = is_continuation[ids] & ~np.isin(ids, [PAD, CLS, SEP])
    continuation[:, 1] = False  # a word cannot continue [CLS]
    # A "##" piece is selected exactly when the piece before it is: words go whole.
    np.testing.assert_array_equal(selected[:, 1:][continuation[:, 1:]], selected[:, :-1][continuation[:, 1:]])
    assert continuation.sum() > 1000  # the check above saw many multi-piece words
    n = (~np.isin(ids, [PAD, CLS, SEP])).sum(1)
    counts = selected.sum(1)
    budget = np.array([max(1, round(k * 0.15)) for k in n])
    assert (counts <= budget).all()
    assert counts.sum() / n.sum() > 0.13  # stops at the first word that does not fit
    # [MASK] / random / keep is decided once per word (Google's draws per piece, bert#910):
    # a selected "##" piece got what the piece before it got.
    masked = out["input_word_ids"]
    outcome = np.where(masked == MASK, 0, np.where(masked == ids, 2, 1))  # mask, random, keep
    later_piece = continuation[:, 1:] & selected[:, 1:]
    assert later_piece.sum() > 300 and set(outcome[selected].tolist()) == {0, 1, 2}
    np.testing.assert_array_equal(outcome[:, 1:][later_piece], outcome[:, :-1][later_piece])


def test_tensorflow_text_selector_rounds_up():
    """The measured reason for not using RandomItemSelector: ceil(n * rate), not round."""
    text = pytest.importorskip("tensorflow_text")
    lengths = np.random.RandomState(0).randint(5, 40, size=1000)
    ragged = tf.ragged.constant([[5] * n for n in lengths])
    selector = text.RandomItemSelector(max_selections_per_batch=100, selection_rate=0.15)
    share = tf.reduce_mean(tf.cast(selector.get_selection_mask(ragged, axis=1).flat_values, tf.float32))
    assert share > 0.165  # tensorflow-text: about 17 %
    masker = MaskedLMMasker(VOCAB, MASK, [PAD], max_predictions_per_seq=100)
    ours = masker(ragged.to_tensor(), seed=[0, 0])["masked_lm_weights"].numpy().sum() / lengths.sum()
    assert abs(ours - 0.15) < 0.005


def test_bad_arguments():
    with pytest.raises(ValueError, match="masked_lm_prob"):
        MaskedLMMasker(VOCAB, MASK, [PAD], masked_lm_prob=0.0)
    with pytest.raises(ValueError, match="sum to <= 1"):
        MaskedLMMasker(VOCAB, MASK, [PAD], mask_token_rate=0.95, random_token_rate=0.1)
    with pytest.raises(ValueError, match="max_predictions_per_seq"):
        MaskedLMMasker(VOCAB, MASK, [PAD], max_predictions_per_seq=0)
    with pytest.raises(ValueError, match="one bool per vocabulary id"):
        MaskedLMMasker(VOCAB, MASK, [PAD], is_continuation=[False] * 10)
