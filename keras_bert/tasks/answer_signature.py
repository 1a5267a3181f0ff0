"""The span labeler's `answer` signature: question and context strings in, the answer out, in the graph.

SQuAD answers over `doc_stride` windows with run_squad.py's max-context rule, as
`keras_bert.data.squad_postprocess` picks them; `span_from_ids` is the one-window form for
ids-only graphs (ONNX). Outputs are dense `[batch]` tensors: no answer gives "" / -1 / 0.
"""

import dataclasses
import math
import numbers

import tensorflow as tf

from keras_bert.data.text_windows import window_spans
from keras_bert.text.packer import pack_segments, pair_specials
from keras_bert.text.ragged_rows import join_rows


@dataclasses.dataclass(frozen=True)
class SquadOptions:
    """How the `answer` signature windows contexts and picks spans (`squad_features` + `squad_postprocess`)."""

    doc_stride: int = 128
    max_query_length: int = 64
    max_answer_length: int = 30
    n_best_size: int = 20
    version_2_with_negative: bool = False
    null_score_diff_threshold: float = 0.0

    def __post_init__(self):
        """Refuse options the `answer` signature cannot use, at export time, in one line naming the flag."""
        for name in ("doc_stride", "max_query_length", "max_answer_length", "n_best_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"--{name} must be a whole number >= 1 (got {value!r}): the answer "
                                 "signature cannot window or pick spans with it.")
        threshold = self.null_score_diff_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not math.isfinite(threshold):
            raise ValueError(f"--null_score_diff_threshold must be a finite number (got {threshold!r}).")


def answer(serving, question, context, options):
    """`[b]` questions and contexts -> the best answer span over `doc_stride` windows.

    The same features as `squad_features` (question cut to `max_query_length` pieces,
    windows `doc_stride` pieces apart, each piece scored in the window that gives it the most
    context) and the same choice as `squad_postprocess` (the `n_best_size` best starts and
    ends of each window, start in its max-context window, `max_answer_length` pieces at most).
    Returns `answer_text` (string `[b]`), `start_char`, `end_char` (int64 `[b]`, characters;
    -1 and "" when there is no answer), `score` (float32 `[b]`, start + end logit) and
    `null_score` (float32 `[b]`, the smallest `[CLS]` start + end logit over the windows).
    """
    seq_length = serving.seq_length
    question, context = _one_context_per_question(question, context)
    query = serving.tokenizer.tokenize(question)[:, :options.max_query_length]  # [b, (q)]
    ids, starts, ends = (join_rows(t.row_splits, t.values)  # [b, (p)]
                         for t in serving.tokenizer.tokenize_with_offsets(context))
    n_pieces = ids.row_lengths()  # [b]
    layout = getattr(serving.tokenizer, "pair_layout", "bert")
    before_b, specials = pair_specials(layout)  # [CLS] q [SEP] context [SEP]: 2, 3 (RoBERTa: 3, 4)
    max_doc = seq_length - specials - query.row_lengths()  # [b]
    checks = [tf.debugging.assert_positive(
        max_doc, message=f"seq_length={seq_length} leaves no room for the context after the "
                         f"question; lower max_query_length={options.max_query_length}")]
    with tf.control_dependencies(checks):
        max_doc = tf.identity(max_doc)
    example, window_start, window_length = (  # [W] each, int64 as the ragged row starts they index with
        tf.cast(t, tf.int64) for t in window_spans(n_pieces, max_doc, options.doc_stride))
    # Context piece indices of each window, in the flat context pieces of the batch.
    local = tf.ragged.range(window_length)  # [W, (l)] index within the window
    piece = local + tf.expand_dims(window_start, 1)  # [W, (l)] index within the context
    flat_piece = piece + tf.expand_dims(tf.gather(ids.row_starts(), example), 1)
    window_ids = tf.gather(ids.flat_values, flat_piece)  # [W, (l)]
    # All windows of the request run as one batch, each padded to seq_length (not to the longest
    # window): squad_postprocess, as run_squad.py, takes the n_best_size best starts and ends over
    # every position, padding included, so less padding could change the answer. Long contexts'
    # windows are full anyway.
    packed = pack_segments([tf.gather(query, example), window_ids], seq_length, serving.tokenizer.cls_id,
                           serving.tokenizer.sep_id, serving.tokenizer.pad_id, truncation=None, layout=layout)
    outputs = serving.outputs_from_ids(packed)
    start_logits, end_logits = outputs["start_logits"], outputs["end_logits"]  # [W, seq]

    max_context = _max_context(local, window_length, flat_piece, tf.size(ids.flat_values))
    lengths = tf.expand_dims(window_length, 1)
    # Sequence position p holds context piece p - offset for offset <= p < offset + length.
    offset = tf.cast(tf.gather(query.row_lengths(), example) + before_b, tf.int32)[:, tf.newaxis]  # [W, 1]
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


def _one_context_per_question(question, context):
    """`question`, `context` once they have the same length; else one assertion naming both lengths."""
    questions, contexts = tf.shape(question)[0], tf.shape(context)[0]
    check = tf.debugging.Assert(tf.equal(questions, contexts), [
        "answer: question has", questions, "texts and context has", contexts,
        "texts; pass one context per question (the same number of each)"])
    with tf.control_dependencies([check]):  # nothing reads them before the check
        return tf.identity(question), tf.identity(context)


def _max_context(local, window_length, flat_piece, num_pieces):
    """Bool `[W, (l)]`: whether each window is its piece's max-context window (run_squad.py's rule:
    a piece's score in a window is min(left, right) + 0.01 * length; the first best wins)."""
    score = (tf.cast(tf.minimum(local, tf.expand_dims(window_length, 1) - 1 - local), tf.float32)
             + 0.01 * tf.cast(tf.expand_dims(window_length, 1), tf.float32))  # [W, (l)]
    segments = tf.cast(flat_piece.flat_values, tf.int32)
    num_segments = tf.cast(num_pieces, tf.int32)
    best_score = tf.math.unsorted_segment_max(score.flat_values, segments, num_segments)
    is_best = tf.equal(score.flat_values, tf.gather(best_score, segments))
    window_of = tf.cast(local.value_rowids(), tf.int32)  # [sum l] window of each (window, piece)
    best_window = tf.math.unsorted_segment_min(
        tf.where(is_best, window_of, tf.int32.max), segments, num_segments)
    return local.with_flat_values(tf.equal(tf.gather(best_window, segments), window_of))


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
    # The lowest float, not -inf, marks "no span": tf2onnx lowers a select as multiply-and-add, and -inf * 0 is NaN.
    pair_score = tf.reshape(tf.where(valid, pair_score, tf.float32.min), [-1, k * k])  # [W, k*k]
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


def span_from_ids(inputs, start_logits, end_logits, options, sep_id=None, layout="bert"):
    """The answer of one-window features, in pieces: ids in, no tokenizer (the ONNX ids model).

    The context is segment B without its closing separator: with `sep_id` (the tokenizer's), the pieces after
    the question's separators in `layout` (every family: RoBERTa and DistilBERT type B 0); without, the pieces
    typed 1. Every context piece has its max context in a single window. Returns `answer_start`, `answer_end`
    (int32 `[b]` positions in the sequence, -1 for no answer), `score` and `null_score` (float32 `[b]`), the
    numbers `squad_postprocess` decides by.
    """
    mask = inputs["input_mask"]
    position = tf.range(tf.shape(mask)[1])[tf.newaxis, :]  # [1, seq]
    last = tf.reduce_sum(mask, axis=1, keepdims=True) - 1  # [b, 1] the closing [SEP]
    if sep_id is None:
        in_b = tf.equal(inputs["input_type_ids"], 1)
    else:  # B starts after the first separator and the ones that follow it ([SEP]; RoBERTa's </s></s>)
        first_sep = tf.argmax(tf.cast(tf.equal(inputs["input_word_ids"], sep_id), tf.int32), axis=1,
                              output_type=tf.int32)[:, tf.newaxis]
        in_b = position >= first_sep + pair_specials(layout)[0] - 1
    context = in_b & tf.equal(mask, 1) & (position < last)  # [b, seq]
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
