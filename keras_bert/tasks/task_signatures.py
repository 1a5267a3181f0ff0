"""Raw text in, a usable answer out: the task signatures of a served model, all in the graph.

`classify` (classifier): label names, probabilities and the top label. `entities` (token
classifier): entity spans with character offsets into the input, decoded from BIO/IOB1/IOBES
tags exactly as `keras_bert.tasks.entity_spans` reads them. The span labeler's `answer`
is in `answer_signature.py`. Outputs are dense `[batch, ...]` tensors
(TF Serving's REST API has no ragged tensors): padded slots hold "" / -1 / 0.
"""

import tensorflow as tf

from keras_bert.tasks.entity_tags import split_tag  # entity_spans' reading of a tag
from keras_bert.text.ragged_rows import join_rows

OUTSIDE = "O"


def classify(probabilities, labels):
    """`[b, classes]` probabilities -> `labels` `[b, classes]`, `probabilities`, `top_label` `[b]`."""
    names = tf.constant(labels)
    batch = tf.shape(probabilities)[0]
    return {"labels": tf.tile(names[tf.newaxis], [batch, 1]), "probabilities": probabilities,
            "top_label": tf.gather(names, tf.argmax(probabilities, axis=-1, output_type=tf.int32))}


# ----- entities


def _tag_parts(labels, outside=OUTSIDE):
    """Per label: its scheme letter (O B I E S) and entity type index (-1 for outside)."""
    letters, types, type_names = [], [], []
    for tag in labels:
        letter, name = split_tag(tag, outside)
        if letter != "O" and name not in type_names:
            type_names.append(name)
        letters.append(letter)
        types.append(-1 if letter == "O" else type_names.index(name))
    return letters, types


def decode_entities(tag_ids, labels, outside=OUTSIDE):
    """Ragged `[b, (words)]` tag ids -> ragged `[b, (entities)]` `(first_word, last_word, tag_of_first)`.

    A vectorized `keras_bert.tasks.entity_spans`: an entity starts at a B/S tag, at I/E after
    O/E/S, or where the type changes; it ends before the next start or an O.
    """
    letters, types = _tag_parts(labels, outside)
    letter_table = tf.constant([("OBIES".index(letter)) for letter in letters], tf.int32)
    type_table = tf.constant(types, tf.int32)
    # One O after every sentence, so entities end there and never cross sentences.
    sentinel = tf.RaggedTensor.from_row_lengths(
        tf.fill([tag_ids.nrows()], len(labels)), tf.ones([tag_ids.nrows()], tf.int64))
    padded = tf.concat([tf.cast(tag_ids, tf.int32), sentinel], axis=1)  # [b, (w + 1)]
    flat = padded.flat_values
    letter = tf.gather(tf.concat([letter_table, [0]], 0), flat)
    type_ = tf.gather(tf.concat([type_table, [-1]], 0), flat)
    first = tf.equal(tf.ragged.range(padded.row_lengths()).flat_values, 0)
    prev_letter = tf.where(first, 0, tf.concat([[0], letter[:-1]], 0))
    prev_type = tf.where(first, -1, tf.concat([[-1], type_[:-1]], 0))
    o, b, i, e, s = range(5)
    is_ = lambda x, *options: tf.reduce_any(tf.stack([tf.equal(x, v) for v in options]), axis=0)  # noqa: E731
    ends = (is_(prev_letter, e, s) | (is_(prev_letter, b, i) & is_(letter, b, s, o))
            | ((prev_letter != o) & (prev_type != type_)))
    starts = (is_(letter, b, s) | (is_(prev_letter, e, s, o) & is_(letter, e, i))
              | ((letter != o) & (prev_type != type_)))
    position = tf.ragged.range(padded.row_lengths()).flat_values
    start_rows = tf.boolean_mask(padded.value_rowids(), starts)
    first_word = tf.boolean_mask(position, starts)
    last_word = tf.boolean_mask(position, ends) - 1  # the k-th end closes the k-th start
    first_tag = tf.boolean_mask(flat, starts)
    nrows = tag_ids.nrows()
    return tuple(tf.RaggedTensor.from_value_rowids(v, start_rows, nrows=nrows)
                 for v in (first_word, last_word, first_tag))


def entity_type_names(labels, outside=OUTSIDE):
    """The entity type of each label ("B-PER" -> "PER"; "" for outside), as entity_spans names it."""
    return [split_tag(tag, outside)[1] for tag in labels]


def entities(serving, text, labels, outside=OUTSIDE):
    """`[b]` strings -> entity spans: the token classifier's first-piece tag of every word, decoded.

    Words are the tokenizer's (whitespace and punctuation split, `tokenize_with_offsets`);
    words past `seq_length - 2` pieces are tagged outside. Returns `entity_text`,
    `entity_label` (string `[b, n]`), `start_char`, `end_char` (int64 `[b, n]`, characters,
    `text[start:end]` in Python), `score` (float32 `[b, n]`: mean over the entity's words of the
    tag's probability) and `num_entities` (int32 `[b]`).
    """
    ids, starts, ends = serving.tokenizer.tokenize_with_offsets(text)  # [b, (w), (p)]
    pieces = join_rows(ids.row_splits, ids.values)  # [b, (p)]
    inputs = serving.preprocessor.pack([pieces])
    probabilities = serving.outputs_from_ids(inputs, by_length=True)["probabilities"]  # [b, seq, labels]
    # Position of each word's first piece in the packed sequence: 1 + pieces before it in its text.
    word_lengths = ids.row_lengths(axis=2)  # [b, (w)]
    before = tf.cumsum(word_lengths.flat_values)  # [W] pieces up to and including each word
    before -= word_lengths.flat_values  # pieces before each word, over the whole batch
    text_base = tf.gather(tf.concat([tf.zeros([1], tf.int64), tf.cumsum(tf.reduce_sum(word_lengths, axis=1))], 0),
                          word_lengths.value_rowids())  # pieces of the texts before this one
    first_piece = before - text_base + 1
    fits = first_piece < serving.seq_length - 1  # [CLS] ... [SEP]
    index = tf.stack([word_lengths.value_rowids(), tf.where(fits, first_piece, 0)], axis=1)
    word_probs = tf.gather_nd(probabilities, index)  # [W, labels]
    tag = tf.where(fits, tf.argmax(word_probs, axis=-1, output_type=tf.int32), labels.index(outside)
                   if outside in labels else len(labels))
    tag_prob = tf.where(fits, tf.reduce_max(word_probs, axis=-1), 0.0)
    tags = word_lengths.with_flat_values(tag)
    first_word, last_word, first_tag = decode_entities(tags, labels, outside)
    # Character span of every word: its first piece's start, its last piece's end.
    word_start = tf.gather(starts.flat_values, starts.values.row_starts())
    word_end = tf.gather(ends.flat_values, ends.values.row_limits() - 1)
    word_offset = tf.gather(word_lengths.row_starts(), first_word.value_rowids())  # flat word index base
    lo, hi = first_word.flat_values + word_offset, last_word.flat_values + word_offset
    start_char, end_char = tf.gather(word_start, lo), tf.gather(word_end, hi)
    # Mean tag probability over the entity's words.
    cum = tf.concat([[0.0], tf.cumsum(tag_prob)], 0)
    score = (tf.gather(cum, hi + 1) - tf.gather(cum, lo)) / tf.cast(hi - lo + 1, tf.float32)
    rows = first_word.value_rowids()
    entity_text = tf.strings.substr(tf.gather(text, rows), tf.cast(start_char, tf.int32),
                                    tf.cast(end_char - start_char, tf.int32), unit="UTF8_CHAR")
    type_names = tf.constant(entity_type_names(labels, outside) + [""])
    entity_label = tf.gather(type_names, first_tag.flat_values)
    nrows = first_word.nrows()

    def dense(values, default):
        return tf.RaggedTensor.from_value_rowids(values, rows, nrows=nrows).to_tensor(default)

    return {"entity_text": dense(entity_text, ""), "entity_label": dense(entity_label, ""),
            "start_char": dense(start_char, tf.constant(-1, tf.int64)),
            "end_char": dense(end_char, tf.constant(-1, tf.int64)),
            "score": dense(score, 0.0),
            "num_entities": tf.cast(first_word.row_lengths(), tf.int32)}
