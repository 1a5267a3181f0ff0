"""A small deterministic pretraining input with the exact structure of `pretraining_dataset`.

Sequences count upwards from a random start (`[CLS] a a+1 ... [SEP] b b+1 ... [SEP]`),
so masked tokens are predictable from their neighbours; segment B continues A
(label 0) or starts elsewhere (label 1). Every batch is a pure function of
(seed, pipeline id, batch index): the stream is reproducible and can be skipped.
Every sequence has exactly `predictions` masked slots, all with weight 1.
"""

import tensorflow as tf

VOCAB_SIZE = 64
FIRST_WORD = 5  # 0 [PAD], 1 [UNK], 2 [CLS], 3 [SEP], 4 [MASK]


def synthetic_input(seq_length=16, predictions=3, seed=0):
    """`fn(batch_size, input_context)` -> endless dataset of `(features, labels)` batches."""
    half = (seq_length - 3) // 2
    words = VOCAB_SIZE - FIRST_WORD

    def example(index, pipeline):
        key = tf.stack([tf.cast(seed, tf.int64) * 1000 + pipeline, index])
        start = tf.random.stateless_uniform([], key, 0, words, tf.int32)
        label = tf.random.stateless_uniform([], key + 1, 0, 2, tf.int32)
        jump = tf.random.stateless_uniform([], key + 2, 7, words - 7, tf.int32)
        a = (start + tf.range(half)) % words + FIRST_WORD
        b_start = start + half + label * jump
        b = (b_start + tf.range(half)) % words + FIRST_WORD
        ids = tf.concat([[2], a, [3], b, [3]], 0)
        n = tf.shape(ids)[0]
        ids = tf.pad(ids, [[0, seq_length - n]])
        mask = tf.pad(tf.ones([n], tf.int32), [[0, seq_length - n]])
        types = tf.pad(tf.concat([tf.zeros([half + 2], tf.int32), tf.ones([half + 1], tf.int32)], 0),
                       [[0, seq_length - n]])
        candidates = tf.concat([tf.range(1, half + 1), tf.range(half + 2, 2 * half + 2)], 0)
        order = tf.argsort(tf.random.stateless_uniform([2 * half], key + 3))
        positions = tf.sort(tf.gather(candidates, order[:predictions]))
        masked_ids = tf.gather(ids, positions)
        ids = tf.tensor_scatter_nd_update(ids, positions[:, None], tf.fill([predictions], 4))
        features = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types,
                    "masked_lm_positions": positions}
        labels = {"masked_lm_ids": masked_ids, "masked_lm_weights": tf.ones([predictions], tf.float32),
                  "next_sentence_labels": label}
        return features, labels

    def train_input(batch_size, input_context=None):
        pipeline = 0
        if input_context is not None:  # batch_size is global, as in pretraining_dataset
            pipeline = input_context.input_pipeline_id
            batch_size = input_context.get_per_replica_batch_size(batch_size)
        dataset = tf.data.Dataset.range(2**62)
        return dataset.map(lambda i: example(i, pipeline)).batch(batch_size, drop_remainder=True)

    return train_input
