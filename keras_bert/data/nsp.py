"""Next-sentence-prediction instances from tokenized documents, vectorized TensorFlow ops.

The algorithm is Google's `create_instances_from_document` (google-research/bert
`create_pretraining_data.py`): from sentence `i`, whole sentences are gathered until their
length reaches a target (`seq_length - 3`, or with `short_seq_prob` a random length in
`[2, seq_length - 3]`) or the document ends; A is the first `a` of these sentences (`a`
random in `[1, chunk - 1]`); with probability 0.5 B is a random run of sentences starting at
a random sentence of a random *other* document, long enough to fill the target, and the
chunk's unused sentences are put back (the next chunk starts after A); otherwise B is the
rest of the chunk. A and B are then trimmed one token at a time from the longer one (B on
ties), at the front or back at random.

Written without a Python or `tf.while_loop` per sentence: each sentence `i` draws the random
numbers an instance starting there would use, which makes "where does the next chunk start"
a vectorized function `next(i)`; the chain `0, next(0), next(next(0)), ...` is then found by
pointer doubling (log2(instances) steps). Two deliberate differences from Google:

* Google draws the short target once per document, here once per instance: with few, long
  documents (78 Shakespeare plays) a per-document draw makes 10 % of the plays, not 10 % of
  the sequences, short.
* Google makes B random whenever the chunk is a single sentence (one sentence already
  reaching the target, or the document's last sentence), so fewer than half the pairs are
  positives: 44.3 % on Shakespeare with paragraphs as sentences, 35 % with its speeches as
  documents. Here the coin is thrown first and a one-sentence chunk takes the next sentence
  too (a positive's B; trimmed like any pair). A document's last sentence has none, so an
  instance never *starts* there, whatever the coin (a one-sentence document gives no
  instance); it still serves as other instances' random B. Labels stay 50/50.
"""

import tensorflow as tf

from keras_bert.text.packer import pack_segments


def create_instances(tokens, sentence_lengths, document_sentence_counts, document_ids,
                     num_documents, seed, seq_length, cls_id, sep_id, short_seq_prob=0.1,
                     next_sentence=True):
    """Builds packed `[CLS] A [SEP] B [SEP]` instances from a pool of documents.

    Instances start in the first `num_documents` documents; random B segments come from any
    pool document whose id differs from A's.

    Args:
        tokens: int32 `[T]`, the pool's pieces, document after document.
        sentence_lengths: int32 `[S]`, pieces per sentence (all > 0), in order.
        document_sentence_counts: int32 `[D]`, sentences per document (all > 0).
        document_ids: int64 `[D]`, identity of each document (equal ids = same document).
        num_documents: int32 scalar, documents that emit instances (a prefix of the pool).
        seed: `[2]` int seed of the stateless random ops.
        seq_length: output length (>= 5 with `next_sentence`, else >= 3).
        cls_id: the `[CLS]` id.
        sep_id: the `[SEP]` id.
        short_seq_prob: probability of a shorter random target length.
        next_sentence: if False, instances are single segments `[CLS] A [SEP]`.

    Returns:
        Dict of int32 `input_word_ids`, `input_mask`, `input_type_ids` `[N, seq_length]` and
        `next_sentence_labels` `[N]` (0: B follows A, 1: B is random).

    Example:
        >>> out = create_instances(tf.constant([5, 6, 7, 8], tf.int32), [2, 2], [1, 1],
        ...                        tf.constant([0, 1], tf.int64), 1, [0, 0], 8, 101, 102)
        >>> out["input_word_ids"].shape
        TensorShape([1, 8])
    """
    max_num_tokens = seq_length - 3 if next_sentence else seq_length - 2
    sentence_start = tf.pad(tf.cumsum(sentence_lengths), [[1, 0]])  # [S + 1] piece offsets
    document_start = tf.pad(tf.cumsum(document_sentence_counts), [[1, 0]])  # [D + 1] sentences
    num_sentences = document_start[num_documents]  # sentences that may start an instance
    chain_seed, front_seed = tf.unstack(tf.random.experimental.stateless_split(seed, 2))
    # Six uniforms per sentence, as columns (one unstack: a fraction of the ops of six slices).
    u = tf.unstack(tf.random.stateless_uniform([num_sentences, 6], chain_seed), 6, axis=1)  # 6 x [n]

    def randint(low, high, uniform):  # uniform integer in [low, high]
        return low + tf.minimum(
            tf.cast(uniform * tf.cast(high - low + 1, tf.float32), tf.int32), high - low)

    # For every sentence i: the chunk an instance starting at i would take.
    i = tf.range(num_sentences)
    document = tf.searchsorted(document_start, i, side="right") - 1  # [n]
    document_end = tf.gather(document_start, document + 1)
    target = tf.where(u[0] < short_seq_prob, randint(2, max_num_tokens, u[1]), max_num_tokens)
    chunk_end = tf.searchsorted(sentence_start, tf.gather(sentence_start, i) + target, side="left")
    chunk_end = tf.clip_by_value(chunk_end, i + 1, document_end)
    if next_sentence:
        is_random = u[3] < 0.5
        # A positive needs a second sentence: a one-sentence chunk takes the next one too.
        # With no next sentence no instance starts here, whatever the coin (labels stay 50/50).
        emits = i + 1 < document_end
        chunk_end = tf.where(~is_random & (chunk_end == i + 1),
                             tf.minimum(chunk_end + 1, document_end), chunk_end)
        chunk = chunk_end - i
        a_count = tf.where(chunk >= 2, randint(1, chunk - 1, u[2]), 1)
        following = tf.where(is_random, i + a_count, chunk_end)  # put back unused sentences
    else:
        a_count, is_random, following = chunk_end - i, tf.zeros_like(i, tf.bool), chunk_end
        emits = tf.ones_like(i, tf.bool)

    starts = _chain(following, num_sentences)  # [N] sentences where instances start
    starts = tf.gather(starts, tf.where(tf.gather(emits, starts))[:, 0])  # 1-D boolean_mask
    target, chunk_end, a_count, is_random, document, u_document, u_sentence = (
        tf.gather(x, starts) for x in (target, chunk_end, a_count, is_random, document, u[4], u[5]))
    a_start = tf.gather(sentence_start, starts)
    a_end = tf.gather(sentence_start, starts + a_count)
    b_start, b_end = a_end, tf.gather(sentence_start, chunk_end)
    if next_sentence:
        random_start, random_end = _random_spans(
            sentence_start, document_start, document_sentence_counts, document_ids, document,
            is_random, target - (a_end - a_start), u_document, u_sentence)
        b_start = tf.where(is_random, random_start, b_start)
        b_end = tf.where(is_random, random_end, b_end)
    else:
        b_end = b_start

    a_start, a_end, b_start, b_end = _truncate_pair(
        a_start, a_end, b_start, b_end, max_num_tokens, front_seed)
    return _pack(tokens, a_start, a_end, b_start, b_end, is_random, seq_length, cls_id, sep_id,
                 next_sentence)


def _chain(following, num_sentences):
    """Sentences visited from 0 by `i -> following[i]` (`following[i] > i`), by pointer doubling."""
    jump = tf.concat([following, [num_sentences]], 0)  # the end maps to itself
    chain = tf.zeros([1], tf.int32)
    # chain holds next^m(0) for m < L and jump is next^L; doubling L each step.
    chain, _ = tf.while_loop(
        lambda chain, jump: chain[-1] < num_sentences,
        lambda chain, jump: (tf.concat([chain, tf.gather(jump, chain)], 0), tf.gather(jump, jump)),
        (chain, jump),
        shape_invariants=(tf.TensorShape([None]), tf.TensorShape([None])))
    return tf.gather(chain, tf.where(chain < num_sentences)[:, 0])


def _random_spans(sentence_start, document_start, document_sentence_counts, document_ids,
                  document, is_random, target_b, u_document, u_sentence):
    """Google's random B: a random other document, a random first sentence, enough sentences."""
    own_id = tf.gather(document_ids, document)  # [N]
    candidate = tf.cast(tf.not_equal(document_ids[tf.newaxis, :], own_id[:, tf.newaxis]),
                        tf.int32)  # [N, D]
    num_candidates = tf.reduce_sum(candidate, 1)
    check = tf.debugging.Assert(
        tf.reduce_all((num_candidates > 0) | ~is_random),
        ["Next-sentence prediction needs a random sentence from a different document, but the "
         "documents seen so far are all one document. Pass more documents (files, or blank-line "
         "separated documents in input_format='bert') or next_sentence=False."])
    with tf.control_dependencies([check]):
        pick = tf.minimum(tf.cast(u_document * tf.cast(num_candidates, tf.float32), tf.int32),
                          num_candidates - 1)
    # The pick-th candidate: first column where the running count exceeds pick.
    other = tf.argmax(tf.cast(tf.cumsum(candidate, axis=1) > pick[:, tf.newaxis], tf.int32),
                      axis=1, output_type=tf.int32)
    count = tf.gather(document_sentence_counts, other)
    first = tf.gather(document_start, other) + tf.minimum(
        tf.cast(u_sentence * tf.cast(count, tf.float32), tf.int32), count - 1)
    last = tf.searchsorted(sentence_start, tf.gather(sentence_start, first) + target_b, side="left")
    last = tf.clip_by_value(last, first + 1, tf.gather(document_start, other + 1))
    return tf.gather(sentence_start, first), tf.gather(sentence_start, last)


def _truncate_pair(a_start, a_end, b_start, b_end, max_num_tokens, seed):
    """Google's `truncate_seq_pair` in closed form: counts per segment, front/back binomial."""
    a_length, b_length = a_end - a_start, b_end - b_start
    excess = tf.maximum(a_length + b_length - max_num_tokens, 0)
    first = tf.minimum(excess, tf.abs(a_length - b_length))  # from the longer one alone
    rest = excess - first  # then alternately, B first (ties trim B)
    a_cut = tf.where(a_length > b_length, first, 0) + rest // 2
    b_cut = tf.where(a_length > b_length, 0, first) + (rest + 1) // 2
    fronts = tf.random.stateless_binomial(
        [2, tf.size(a_cut)], seed, counts=tf.cast(tf.stack([a_cut, b_cut]), tf.float32),
        probs=0.5, output_dtype=tf.int32)  # [2, N] pieces cut at the front; the rest at the back
    a_front, b_front = tf.unstack(fronts, 2)
    return a_start + a_front, a_end - (a_cut - a_front), b_start + b_front, b_end - (b_cut - b_front)


def _pack(tokens, a_start, a_end, b_start, b_end, is_random, seq_length, cls_id, sep_id,
          next_sentence):
    """`[CLS] A [SEP] B [SEP]` + right padding, as dense `[N, seq_length]` tensors."""
    segments = [tf.gather(tokens, tf.ragged.range(a_start, a_end))]  # (N, (pieces))
    if next_sentence:
        segments.append(tf.gather(tokens, tf.ragged.range(b_start, b_end)))
    features = pack_segments(segments, seq_length, cls_id, sep_id, truncation=None)  # already fit
    features["next_sentence_labels"] = tf.cast(is_random, tf.int32)
    return features
