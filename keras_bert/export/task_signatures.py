"""Raw text in, a usable answer out: the task signatures of a served model, all in the graph.

`classify` (classifier): label names, probabilities and the top label. `entities` (token
classifier): entity spans with character offsets into the input, decoded from BIO/IOB1/IOBES
tags exactly as `keras_bert.training.entity_spans` reads them. `answer` (span labeler):
SQuAD answers over `doc_stride` windows with run_squad.py's max-context rule, as
`keras_bert.data.squad_postprocess` picks them. Outputs are dense `[batch, ...]` tensors
(TF Serving's REST API has no ragged tensors): padded slots hold "" / -1 / 0.
"""

import dataclasses
import json
import os

import tensorflow as tf

from keras_bert.text.packer import pack_segments
from keras_bert.tasks.token_classification import _split_tag as split_tag  # entity_spans' reading of a tag

OUTSIDE = "O"


@dataclasses.dataclass(frozen=True)
class SquadOptions:
    """How the `answer` signature windows contexts and picks spans (`squad_features` + `squad_postprocess`)."""

    doc_stride: int = 128
    max_query_length: int = 64
    max_answer_length: int = 30
    n_best_size: int = 20
    version_2_with_negative: bool = False
    null_score_diff_threshold: float = 0.0


def check_labels(labels, num_outputs, task):
    """`labels` as a list of `num_outputs` distinct strings, or a one-line error."""
    labels = [str(label) for label in labels]
    if len(labels) != num_outputs:
        raise ValueError(
            f"labels= has {len(labels)} names but the {task} has {num_outputs} outputs; pass the "
            "label vocabulary the model was fine-tuned with (labels[i] is output i).")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels= lists a name twice: {labels}; every label must appear once.")
    return labels


def saved_labels(model_path):
    """The label names a fine-tuning run saved next to `model_path` (`run_config.json`'s task
    labels, written by `keras_bert.training` / tools/finetune.py), or None."""
    path = os.path.join(os.path.dirname(os.path.abspath(os.fspath(model_path))), "run_config.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        stored = json.load(f)
    labels = stored.get("identity", stored.get("model", {})).get("task", {}).get("labels")
    return [str(label) for label in labels] if isinstance(labels, list) else None


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
        if letter == "O":
            letters.append("O")
            types.append(-1)
            continue
        if name not in type_names:
            type_names.append(name)
        letters.append(letter)
        types.append(type_names.index(name))
    return letters, types


def decode_entities(tag_ids, labels, outside=OUTSIDE):
    """Ragged `[b, (words)]` tag ids -> ragged `[b, (entities)]` `(first_word, last_word, tag_of_first)`.

    A vectorized `keras_bert.training.entity_spans`: an entity starts at a B/S tag, at I/E after
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


def entities(module, text, labels, outside=OUTSIDE):
    """`[b]` strings -> entity spans: the token classifier's first-piece tag of every word, decoded.

    Words are the tokenizer's (whitespace and punctuation split, `tokenize_with_offsets`);
    words past `seq_length - 2` pieces are tagged outside. Returns `entity_text`,
    `entity_label` (string `[b, n]`), `start_char`, `end_char` (int64 `[b, n]`, characters,
    `text[start:end]` in Python), `score` (float32 `[b, n]`: mean over the entity's words of the
    tag's probability) and `num_entities` (int32 `[b]`).
    """
    ids, starts, ends = module.tokenizer.tokenize_with_offsets(text)  # [b, (w), (p)]
    pieces = ids.merge_dims(1, 2)  # [b, (p)]
    inputs = module.preprocessor.pack([pieces])
    probabilities = module.outputs_from_ids(inputs)["probabilities"]  # [b, seq, labels]
    # Position of each word's first piece in the packed sequence: 1 + pieces before it in its text.
    word_lengths = ids.row_lengths(axis=2)  # [b, (w)]
    before = tf.cumsum(word_lengths.flat_values)  # [W] pieces up to and including each word
    before -= word_lengths.flat_values  # pieces before each word, over the whole batch
    text_base = tf.gather(tf.concat([tf.zeros([1], tf.int64), tf.cumsum(tf.reduce_sum(word_lengths, axis=1))], 0),
                          word_lengths.value_rowids())  # pieces of the texts before this one
    first_piece = before - text_base + 1
    fits = first_piece < module.seq_length - 1  # [CLS] ... [SEP]
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


# ----- answer (SQuAD)


def answer(module, question, context, options):
    """`[b]` questions and contexts -> the best answer span over `doc_stride` windows.

    The same features as `squad_features` (question cut to `max_query_length` pieces,
    windows `doc_stride` pieces apart, each piece scored in the window that gives it the most
    context) and the same choice as `squad_postprocess` (the `n_best_size` best starts and
    ends of each window, start in its max-context window, `max_answer_length` pieces at most).
    Returns `answer_text` (string `[b]`), `start_char`, `end_char` (int64 `[b]`, characters;
    -1 and "" when there is no answer), `score` (float32 `[b]`, start + end logit) and
    `null_score` (float32 `[b]`, the smallest `[CLS]` start + end logit over the windows).
    """
    seq_length = module.seq_length
    query = module.tokenizer.tokenize(question)[:, :options.max_query_length]  # [b, (q)]
    ids, starts, ends = (t.merge_dims(1, 2) for t in module.tokenizer.tokenize_with_offsets(context))
    n_pieces = ids.row_lengths()  # [b]
    max_doc = seq_length - 3 - query.row_lengths()  # [b]
    checks = [tf.debugging.assert_positive(
        max_doc, message=f"seq_length={seq_length} leaves no room for the context after the "
                         f"question; lower max_query_length={options.max_query_length}")]
    with tf.control_dependencies(checks):
        max_doc = tf.identity(max_doc)
    # Windows: start at 0, step min(max_doc, doc_stride) while the window does not reach the end.
    step = tf.minimum(max_doc, options.doc_stride)
    extra = tf.maximum(n_pieces - max_doc, 0)
    num_windows = 1 + (extra + step - 1) // step  # [b]
    window_index = tf.ragged.range(num_windows)  # [b, (w)]
    example = window_index.value_rowids()  # [W]
    window_start = window_index.flat_values * tf.gather(step, example)  # [W] in context pieces
    window_length = tf.minimum(tf.gather(n_pieces, example) - window_start, tf.gather(max_doc, example))
    # Context piece indices of each window, in the flat context pieces of the batch.
    local = tf.ragged.range(window_length)  # [W, (l)] index within the window
    piece = local + tf.expand_dims(window_start, 1)  # [W, (l)] index within the context
    flat_piece = piece + tf.expand_dims(tf.gather(ids.row_starts(), example), 1)
    window_ids = tf.gather(ids.flat_values, flat_piece)  # [W, (l)]
    packed = pack_segments([tf.gather(query, example), window_ids], seq_length, module.tokenizer.cls_id,
                           module.tokenizer.sep_id, module.tokenizer.pad_id, truncation=None)
    outputs = module.outputs_from_ids(packed)
    start_logits, end_logits = outputs["start_logits"], outputs["end_logits"]  # [W, seq]

    # Max context: a piece's score in a window is min(left, right) + 0.01 * length; first best wins.
    lengths = tf.expand_dims(window_length, 1)
    score = (tf.cast(tf.minimum(local, lengths - 1 - local), tf.float32)
             + 0.01 * tf.cast(tf.expand_dims(window_length, 1), tf.float32))  # [W, (l)]
    segments = tf.cast(flat_piece.flat_values, tf.int32)
    num_segments = tf.cast(tf.size(ids.flat_values), tf.int32)
    best_score = tf.math.unsorted_segment_max(score.flat_values, segments, num_segments)
    is_best = tf.equal(score.flat_values, tf.gather(best_score, segments))
    window_of = tf.cast(local.value_rowids(), tf.int32)  # [sum l] window of each (window, piece)
    best_window = tf.math.unsorted_segment_min(
        tf.where(is_best, window_of, tf.int32.max), segments, num_segments)
    max_context = local.with_flat_values(tf.equal(tf.gather(best_window, segments), window_of))

    # Sequence position p holds context piece p - offset for offset <= p < offset + length.
    offset = tf.cast(tf.gather(query.row_lengths(), example) + 2, tf.int32)[:, tf.newaxis]  # [W, 1]
    position = tf.range(seq_length)[tf.newaxis, :]  # [1, seq]
    in_context = (position >= offset) & (position < offset + tf.cast(lengths, tf.int32))  # [W, seq]
    dense_max_context = max_context.to_tensor(False, shape=[None, seq_length])  # [W, seq] by local index
    max_context_at = tf.gather(dense_max_context, tf.clip_by_value(position - offset, 0, seq_length - 1),
                               batch_dims=1) & in_context
    window_start_pos, window_end_pos, window_best = best_spans(
        start_logits, end_logits, max_context_at, in_context, options)  # [W] each
    # The first window with the best score wins (squad_postprocess keeps the first strict maximum).
    batch = tf.shape(question)[0]
    example32 = tf.cast(example, tf.int32)
    best = tf.math.unsorted_segment_max(window_best, example32, batch)  # [b]
    is_winner = tf.equal(window_best, tf.gather(best, example32))
    winner = tf.math.unsorted_segment_min(tf.where(is_winner, tf.range(tf.size(example32)), tf.int32.max),
                                          example32, batch)  # [b] window
    winner = tf.minimum(winner, tf.size(example32) - 1)
    s_pos, e_pos = tf.gather(window_start_pos, winner), tf.gather(window_end_pos, winner)
    base = ids.row_starts() + tf.gather(window_start, winner)
    win_offset = tf.gather(offset[:, 0], winner)
    start_char = _take(starts.flat_values, base + tf.cast(s_pos - win_offset, tf.int64))
    end_char = _take(ends.flat_values, base + tf.cast(e_pos - win_offset, tf.int64))
    null_score = tf.math.unsorted_segment_min(start_logits[:, 0] + end_logits[:, 0], example32, batch)
    found = _found(best, null_score, options)
    start_char = tf.where(found, start_char, -1)
    end_char = tf.where(found, end_char, -1)
    answer_text = tf.strings.substr(context, tf.cast(tf.maximum(start_char, 0), tf.int32),
                                    tf.cast(end_char - start_char, tf.int32), unit="UTF8_CHAR")
    return {"answer_text": tf.where(found, answer_text, ""), "start_char": start_char,
            "end_char": end_char, "score": tf.where(found, best, 0.0), "null_score": null_score}


def best_spans(start_logits, end_logits, start_ok, end_ok, options):
    """The best answer span of each row of logits, as `squad_postprocess` picks it in one window.

    Pairs the `n_best_size` best starts with the `n_best_size` best ends; a pair counts where
    `start_ok` (bool `[rows, seq]`: a context piece in its max-context window) holds at the
    start, `end_ok` (a context piece) at the end, end >= start and it spans at most
    `max_answer_length` pieces. Returns int32 start and end positions and the float32 score
    (start + end logit; -inf where no pair counts), each `[rows]`; the first best pair wins.
    """
    seq = start_logits.shape[-1]
    k = (min(options.n_best_size, seq) if seq is not None
         else tf.minimum(options.n_best_size, tf.shape(start_logits)[-1]))  # ids in: dynamic seq
    top_starts = tf.math.top_k(start_logits, k=k).indices  # [W, k]
    top_ends = tf.math.top_k(end_logits, k=k).indices
    s, e = top_starts[:, :, tf.newaxis], top_ends[:, tf.newaxis, :]  # [W, k, 1], [W, 1, k]
    valid = (tf.gather(start_ok, top_starts, batch_dims=1)[:, :, tf.newaxis]
             & tf.gather(end_ok, top_ends, batch_dims=1)[:, tf.newaxis, :]
             & (e >= s) & (e - s + 1 <= options.max_answer_length))  # [W, k, k]
    pair_score = (tf.gather(start_logits, top_starts, batch_dims=1)[:, :, tf.newaxis]
                  + tf.gather(end_logits, top_ends, batch_dims=1)[:, tf.newaxis, :])
    pair_score = tf.reshape(tf.where(valid, pair_score, -float("inf")), [-1, k * k])  # [W, k*k]
    best_pair = tf.argmax(pair_score, axis=1, output_type=tf.int32)  # first best, as postprocess
    start = tf.gather(top_starts, best_pair // k, batch_dims=1)
    end = tf.gather(top_ends, best_pair % k, batch_dims=1)
    return start, end, tf.reduce_max(pair_score, axis=1)


def _found(best, null_score, options):
    """Whether the best span is the answer: some span counted (not -inf, nor the lowest float a
    segment max gives an empty segment) and, for SQuAD v2, the null score does not beat it."""
    found = best > tf.float32.min
    if options.version_2_with_negative:
        found &= ~(null_score - best > options.null_score_diff_threshold)
    return found


def span_from_ids(inputs, start_logits, end_logits, options):
    """The answer of one-window features, in pieces: ids in, no tokenizer (the ONNX ids model).

    The context is segment B (`input_type_ids` 1) without its closing `[SEP]`; every context
    piece has its max context in a single window. Returns `answer_start`, `answer_end` (int32
    `[b]` positions in the sequence, -1 for no answer), `score` and `null_score` (float32 `[b]`),
    the numbers `squad_postprocess` decides by.
    """
    mask, types = inputs["input_mask"], inputs["input_type_ids"]
    position = tf.range(tf.shape(mask)[1])[tf.newaxis, :]  # [1, seq]
    last = tf.reduce_sum(mask, axis=1, keepdims=True) - 1  # [b, 1] the closing [SEP]
    context = tf.equal(types, 1) & tf.equal(mask, 1) & (position < last)  # [b, seq]
    start, end, best = best_spans(start_logits, end_logits, context, context, options)
    null_score = start_logits[:, 0] + end_logits[:, 0]
    found = _found(best, null_score, options)
    return {"answer_start": tf.where(found, start, -1), "answer_end": tf.where(found, end, -1),
            "score": tf.where(found, best, 0.0), "null_score": null_score}


def _take(values, index):
    """`values[index]`, -1 where `index` is out of range (no span found: any index may come up)."""
    padded = tf.concat([values, tf.constant([-1], values.dtype)], 0)
    size = tf.size(values, out_type=index.dtype)
    return tf.gather(padded, tf.where((index >= 0) & (index < size), index, size))
