"""create_instances: Google's NSP pairing, checked by decoding synthetic documents.

Every token id encodes its place (`1000 + index in the pool`), so each A and B can be traced
back to its document and sentences exactly.
"""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.nsp import _truncate_pair, create_instances

CLS, SEP, BASE = 101, 102, 1000


def _pool(num_documents, seed, max_sentences=80, max_length=40):
    rng = np.random.RandomState(seed)
    counts = rng.randint(max_sentences // 4, max_sentences + 1, size=num_documents)
    counts[-1] = 1  # a one-sentence document too
    lengths = rng.randint(1, max_length + 1, size=counts.sum())
    tokens = BASE + np.arange(lengths.sum())
    return tokens.astype(np.int32), lengths.astype(np.int32), counts.astype(np.int32)


def _locate(lengths, counts):
    """Per pool token index: its document, and the set of sentence start indexes."""
    sentence_of_document = np.repeat(np.arange(len(counts)), counts)
    document = np.repeat(sentence_of_document, lengths)
    starts = set(np.concatenate([[0], np.cumsum(lengths)]).tolist())
    return document, starts


def _segments(row, types, mask):
    length = int(mask.sum())
    assert row[0] == CLS and row[length - 1] == SEP
    a = row[1:length][types[1:length] == 0][:-1]  # drop A's [SEP]
    b = row[:length][types[:length] == 1][:-1]  # drop the final [SEP]
    return a, b, length


def _run(seed, seq_length=64, num_documents=6, pool_documents=10, short_seq_prob=0.1):
    tokens, lengths, counts = _pool(pool_documents, seed)
    ids = np.arange(pool_documents, dtype=np.int64)
    out = create_instances(tokens, lengths, counts, ids, num_documents, [seed, 1], seq_length,
                           CLS, SEP, short_seq_prob=short_seq_prob)
    return {k: v.numpy() for k, v in out.items()}, (tokens, lengths, counts)


def test_pairs_decode_to_their_documents():
    positives = total = 0
    for seed in range(40):
        out, (tokens, lengths, counts) = _run(seed)
        document, starts = _locate(lengths, counts)
        for row, types, mask, label in zip(out["input_word_ids"], out["input_type_ids"],
                                           out["input_mask"], out["next_sentence_labels"]):
            a, b, length = _segments(row, types, mask)
            assert length <= 64 and len(a) >= 1 and len(b) >= 1
            np.testing.assert_array_equal(mask, np.arange(64) < length)
            np.testing.assert_array_equal(row[length:], 0)
            np.testing.assert_array_equal(types, (np.arange(64) >= len(a) + 2) & (np.arange(64) < length))
            a, b = a - BASE, b - BASE  # pool token indexes
            assert (np.diff(a) == 1).all() and (np.diff(b) == 1).all()  # contiguous text
            a_document, b_document = document[a[0]], document[b[0]]
            assert document[a[-1]] == a_document and document[b[-1]] == b_document
            assert a_document < 6  # A only from the documents that emit instances
            if label == 0:
                # B really follows A: same document, after A, a sentence boundary in between.
                assert b_document == a_document
                assert b[0] > a[-1]
                assert any(a[-1] + 1 <= k <= b[0] for k in starts)
                positives += 1
            else:
                assert b_document != a_document  # from another document (any of the pool)
            total += 1
    assert total > 4000
    assert abs(positives / total - 0.5) < 0.02, (positives, total)


def test_instances_cover_documents_in_order():
    out, (tokens, lengths, counts) = _run(3, short_seq_prob=0.0)
    document, _ = _locate(lengths, counts)
    firsts = []
    for row, types, mask in zip(out["input_word_ids"], out["input_type_ids"], out["input_mask"]):
        a, _, _ = _segments(row, types, mask)
        firsts.append(a[0] - BASE)
    assert (np.diff(firsts) > 0).all()  # chunks advance through the pool
    assert set(document[firsts]) == set(range(6))  # every emitting document is used


def test_random_b_draws_from_previous_documents_too():
    # 1 emitting document + 3 pool-only ones: every negative B comes from the others.
    out, (tokens, lengths, counts) = _run(5, num_documents=1, pool_documents=4)
    document, _ = _locate(lengths, counts)
    labels = out["next_sentence_labels"]
    assert labels.sum() > 0
    for row, types, mask, label in zip(out["input_word_ids"], out["input_type_ids"],
                                       out["input_mask"], labels):
        a, b, _ = _segments(row, types, mask)
        assert document[a[0] - BASE] == 0
        assert (document[b[0] - BASE] != 0) == bool(label)


def test_short_sequences():
    out, _ = _run(7, seq_length=128, short_seq_prob=0.0, pool_documents=12, num_documents=12)
    full = out["input_mask"].sum(1)
    out_short, _ = _run(7, seq_length=128, short_seq_prob=0.5, pool_documents=12, num_documents=12)
    short = out_short["input_mask"].sum(1)
    assert np.median(full) > 120  # chunks fill the target (125 tokens + 3)
    assert np.mean(short) < np.mean(full) - 10  # shorter targets -> shorter pairs


def test_single_segments_without_next_sentence():
    tokens, lengths, counts = _pool(4, 11)
    out = create_instances(tokens, lengths, counts, np.arange(4, dtype=np.int64), 4, [0, 0], 32,
                           CLS, SEP, next_sentence=False)
    assert (out["next_sentence_labels"].numpy() == 0).all()
    assert (out["input_type_ids"].numpy() == 0).all()
    ids, mask = out["input_word_ids"].numpy(), out["input_mask"].numpy()
    assert ((ids == SEP).sum(1) == 1).all() and (ids[:, 0] == CLS).all()
    assert (mask.sum(1) <= 32).all()
    text = [row[1:m - 1] - BASE for row, m in zip(ids, mask.sum(1))]
    assert all((np.diff(t) == 1).all() for t in text)


def test_one_document_pool_is_an_error():
    lengths = np.full([300], 10, np.int32)  # one document of 300 sentences
    tokens, counts = (BASE + np.arange(3000)).astype(np.int32), np.array([300], np.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pass more documents"):
        create_instances(tokens, lengths, counts, np.zeros([1], np.int64), 1, [0, 0], 64, CLS, SEP)


def test_one_sentence_documents_keep_labels_balanced():
    """Speeches as documents: most have one sentence, which can only pair with a random B."""
    rng = np.random.RandomState(0)
    counts = np.where(rng.rand(3000) < 0.6, 1, rng.randint(2, 6, size=3000)).astype(np.int32)
    lengths = rng.randint(5, 40, size=counts.sum()).astype(np.int32)
    tokens = (BASE + np.arange(lengths.sum())).astype(np.int32)
    out = create_instances(tokens, lengths, counts, np.arange(3000, dtype=np.int64), 3000, [4, 2],
                           128, CLS, SEP)
    labels = out["next_sentence_labels"].numpy()
    assert len(labels) > 1000  # one-sentence documents start no instance
    assert abs(labels.mean() - 0.5) < 0.02, labels.mean()


def test_truncation_matches_googles_loop():
    rng = np.random.RandomState(0)
    a_len = rng.randint(1, 300, size=2000)
    b_len = rng.randint(1, 300, size=2000)
    budget = 125
    a_start, a_end, b_start, b_end = (t.numpy() for t in _truncate_pair(
        tf.zeros(2000, tf.int32), tf.constant(a_len, tf.int32), tf.fill([2000], 1000),
        tf.constant(1000 + b_len, tf.int32), budget, [0, 0]))
    for i in range(2000):
        la, lb = a_len[i], b_len[i]
        while la + lb > budget:  # google-research/bert truncate_seq_pair, lengths only
            if la > lb:
                la -= 1
            else:
                lb -= 1
        assert (a_end[i] - a_start[i], b_end[i] - b_start[i]) == (la, lb)
        assert 0 <= a_start[i] and a_end[i] <= a_len[i]  # trimmed inside the segment
    fronts = a_start.sum() / max(1, (a_len - (a_end - a_start)).sum())
    assert 0.45 < fronts < 0.55  # front or back at random
