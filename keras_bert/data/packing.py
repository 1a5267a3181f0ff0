"""Sequence packing without cross-contamination (Krell et al. 2021; MLPerf BERT), in-graph.

Several masked pretraining examples share one `[seq_length]` row. Each keeps its own
identity: `input_example_ids` (1..k, 0 on padding) lets the encoder restrict attention to
the example's own tokens, `input_position_ids` restart at 0 for each example, its masked
positions are shifted to where it landed, and `next_sentence_positions` points at its own
`[CLS]`, with its NSP label and a weight (0 on unused slots) in `[rows, k]` labels.

Rows are filled first-fit decreasing (longest example first, into the first row with room
for its tokens, its masked predictions and one more example) over a window of examples: a
`tf.while_loop` of plain TensorFlow ops, so the result depends only on the window's content
(deterministic; the pipeline's exact resume holds).
"""

import tensorflow as tf


def pack_examples(features, labels, seq_length, max_predictions_per_seq, max_examples_per_row):
    """Packs a window of unpacked examples into as few rows as first-fit decreasing finds.

    Args:
        features: dict of `[W, seq_length]` `input_word_ids`, `input_mask`, `input_type_ids`
            and `[W, P]` `masked_lm_positions` (one example per row, padding on the right).
        labels: dict of `[W, P]` `masked_lm_ids`, `masked_lm_weights` (real predictions
            first) and optionally `[W]` `next_sentence_labels`.
        seq_length: row length.
        max_predictions_per_seq: `P`, prediction slots per row.
        max_examples_per_row: `k`, examples per row at most.

    Returns:
        `(features, labels)` of `R <= W` rows: features `input_word_ids`, `input_mask`,
        `input_type_ids`, `input_example_ids`, `input_position_ids` (int32 `[R, seq_length]`),
        `masked_lm_positions` (`[R, P]`), `next_sentence_positions` (`[R, k]`); labels
        `masked_lm_ids`, `masked_lm_weights` (`[R, P]`) and, with NSP,
        `next_sentence_labels` (int32) and `next_sentence_weights` (float32) `[R, k]`.

    Example:
        >>> packed, _ = pack_examples(features, labels, 128, 20, 3)
        >>> packed["input_example_ids"].shape
        TensorShape([None, 128])
    """
    lengths = tf.reduce_sum(tf.cast(features["input_mask"], tf.int32), 1)  # [W]
    weights = tf.cast(labels["masked_lm_weights"], tf.float32)
    predictions = tf.reduce_sum(tf.cast(weights > 0, tf.int32), 1)  # [W]
    row, offset, slot, prediction_offset = _first_fit_decreasing(
        lengths, predictions, seq_length, max_predictions_per_seq, max_examples_per_row)
    num_rows = tf.reduce_max(row) + 1

    # Tokens: example e's position j < length_e goes to (row_e, offset_e + j).
    position = tf.range(seq_length)[tf.newaxis, :]  # [1, s]
    valid = position < lengths[:, tf.newaxis]  # [W, s]
    target = tf.boolean_mask(
        tf.stack([tf.broadcast_to(row[:, tf.newaxis], tf.shape(valid)),
                  offset[:, tf.newaxis] + position], -1), valid)  # [tokens, 2]

    def tokens(values):
        return tf.scatter_nd(target, tf.boolean_mask(tf.cast(values, tf.int32), valid),
                             [num_rows, seq_length])

    example_ids = tokens(tf.broadcast_to((slot + 1)[:, tf.newaxis], tf.shape(valid)))
    packed = {
        "input_word_ids": tokens(features["input_word_ids"]),
        "input_mask": tf.cast(example_ids > 0, tf.int32),
        "input_type_ids": tokens(features["input_type_ids"]),
        "input_example_ids": example_ids,
        "input_position_ids": tokens(tf.broadcast_to(position, tf.shape(valid))),
    }

    # Predictions: example e's i-th goes to slot prediction_offset_e + i of its row.
    slot_index = tf.range(max_predictions_per_seq)[tf.newaxis, :]  # [1, P]
    real = slot_index < predictions[:, tf.newaxis]  # [W, P]
    prediction_target = tf.boolean_mask(
        tf.stack([tf.broadcast_to(row[:, tf.newaxis], tf.shape(real)),
                  prediction_offset[:, tf.newaxis] + slot_index], -1), real)

    def prediction_slots(values, dtype=tf.int32):
        return tf.scatter_nd(prediction_target, tf.boolean_mask(tf.cast(values, dtype), real),
                             [num_rows, max_predictions_per_seq])

    packed["masked_lm_positions"] = prediction_slots(
        features["masked_lm_positions"] + offset[:, tf.newaxis])
    packed_labels = {"masked_lm_ids": prediction_slots(labels["masked_lm_ids"]),
                     "masked_lm_weights": prediction_slots(weights, tf.float32)}

    # One [CLS] per example: its position, NSP label and weight at (row, slot).
    example_index = tf.stack([row, slot], 1)  # [W, 2]
    per_row = [num_rows, max_examples_per_row]
    packed["next_sentence_positions"] = tf.scatter_nd(example_index, offset, per_row)
    if "next_sentence_labels" in labels:
        packed_labels["next_sentence_labels"] = tf.scatter_nd(
            example_index, tf.cast(labels["next_sentence_labels"], tf.int32), per_row)
        packed_labels["next_sentence_weights"] = tf.scatter_nd(
            example_index, tf.ones_like(row, tf.float32), per_row)
    return packed, packed_labels


def _first_fit_decreasing(lengths, predictions, seq_length, max_predictions, max_examples):
    """Per example: row, token offset, slot in the row and prediction offset. Rows are a prefix."""
    num_examples = tf.size(lengths)
    order = tf.argsort(-lengths, stable=True)  # longest first; ties keep window order

    def place(i, filled, counts, predicted, row, offset, slot, prediction_offset):
        example = order[i]
        fits = ((filled + lengths[example] <= seq_length) & (counts < max_examples)
                & (predicted + predictions[example] <= max_predictions))  # [W] rows
        target = tf.argmax(tf.cast(fits, tf.int32), output_type=tf.int32)  # an empty row fits
        one_hot = tf.one_hot(target, num_examples, dtype=tf.int32)
        index = [[example]]
        return (i + 1, filled + one_hot * lengths[example], counts + one_hot,
                predicted + one_hot * predictions[example],
                tf.tensor_scatter_nd_update(row, index, [target]),
                tf.tensor_scatter_nd_update(offset, index, [filled[target]]),
                tf.tensor_scatter_nd_update(slot, index, [counts[target]]),
                tf.tensor_scatter_nd_update(prediction_offset, index, [predicted[target]]))

    zeros = tf.zeros_like(lengths)
    _, _, _, _, row, offset, slot, prediction_offset = tf.while_loop(
        lambda i, *_: i < num_examples, place, (0, zeros, zeros, zeros, zeros, zeros, zeros, zeros))
    return row, offset, slot, prediction_offset
