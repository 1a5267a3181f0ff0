"""pack_examples and pretraining_dataset(pack_sequences=True): every example kept whole, in order."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.packing import pack_examples
from keras_bert.data.pretraining import pretraining_dataset

SEQ, PREDICTIONS = 12, 4


def _window(lengths, predictions):
    """Unpacked examples: tokens 100*e + j, predictions at positions 1..n, NSP label e % 2."""
    count = len(lengths)
    position = np.arange(SEQ)[None, :]
    mask = (position < np.array(lengths)[:, None]).astype(np.int32)
    ids = (100 * np.arange(1, count + 1)[:, None] + position) * mask
    slots = np.arange(PREDICTIONS)[None, :] < np.array(predictions)[:, None]
    features = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": mask * (position > 2),
                "masked_lm_positions": np.where(slots, np.arange(1, PREDICTIONS + 1), 0)}
    labels = {"masked_lm_ids": np.where(slots, ids[:, 1:PREDICTIONS + 1], 0),
              "masked_lm_weights": slots.astype(np.float32),
              "next_sentence_labels": np.arange(count) % 2}
    return ({k: tf.constant(v, tf.int32) for k, v in features.items()},
            {k: tf.constant(v) for k, v in labels.items()})


def test_first_fit_decreasing_layout():
    features, labels = _window([5, 12, 4, 3, 6, 2], [2, 4, 1, 1, 2, 1])
    packed, packed_labels = pack_examples(features, labels, SEQ, PREDICTIONS, 3)
    out = {k: v.numpy() for k, v in {**packed, **packed_labels}.items()}
    # Longest first: 12 | 6 5 | 4 3 2 (the 2 does not fit the second row's 11 tokens + 2).
    np.testing.assert_array_equal(out["input_example_ids"], [
        [1] * 12, [1] * 6 + [2] * 5 + [0], [1] * 4 + [2] * 3 + [3] * 2 + [0] * 3])
    np.testing.assert_array_equal(out["input_mask"], out["input_example_ids"] > 0)
    np.testing.assert_array_equal(out["input_position_ids"][2], [0, 1, 2, 3, 0, 1, 2, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(out["input_word_ids"][1], [500 + j for j in range(6)]
                                  + [100 + j for j in range(5)] + [0])
    np.testing.assert_array_equal(out["next_sentence_positions"], [[0, 0, 0], [0, 6, 0], [0, 4, 7]])
    np.testing.assert_array_equal(out["next_sentence_labels"], [[1, 0, 0], [0, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(out["next_sentence_weights"], [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    # Predictions keep their targets, shifted to where each example landed.
    np.testing.assert_array_equal(out["masked_lm_positions"], [[1, 2, 3, 4], [1, 2, 7, 8], [1, 5, 8, 0]])
    np.testing.assert_array_equal(out["masked_lm_ids"], [[201, 202, 203, 204], [501, 502, 101, 102],
                                                         [301, 401, 601, 0]])
    np.testing.assert_array_equal(out["masked_lm_weights"], [[1] * 4, [1] * 4, [1, 1, 1, 0]])
    np.testing.assert_array_equal(
        np.take_along_axis(out["input_word_ids"], out["masked_lm_positions"], 1) * out["masked_lm_weights"],
        out["masked_lm_ids"])


def test_limits_examples_per_row_and_prediction_slots():
    features, labels = _window([2] * 5, [3, 1, 1, 3, 1])
    packed, _ = pack_examples(features, labels, SEQ, PREDICTIONS, 2)
    counts = packed["input_example_ids"].numpy().max(1)
    assert counts.max() <= 2 and counts.sum() == 5
    predictions = tf.reduce_sum(tf.cast(packed["masked_lm_positions"] > 0, tf.int32), 1).numpy()
    assert predictions.max() <= PREDICTIONS and predictions.sum() == 9


def _dataset(files, tokenizer, **kwargs):
    return pretraining_dataset(files, tokenizer, seq_length=64, max_predictions_per_seq=10,
                               batch_size=8, short_seq_prob=0.5, shuffle_buffer=32,
                               pack_sequences=True, **kwargs)


def test_packed_pipeline_is_fuller_deterministic_and_resumes(shakespeare_files, tokenizer, tmp_path):
    files = shakespeare_files[:2]
    padded = next(iter(pretraining_dataset(files, tokenizer, seq_length=64, batch_size=64,
                                           short_seq_prob=0.5, repeat=False)))[0]
    dataset = _dataset(files, tokenizer)
    iterator = iter(dataset)
    first = [next(iterator) for _ in range(3)]
    assert first[0][0]["input_word_ids"].shape == (8, 64)
    assert first[0][1]["next_sentence_labels"].shape == (8, 3)
    fill = np.mean([f["input_mask"].numpy().mean() for f, _ in first])
    assert fill > 0.97 > padded["input_mask"].numpy().mean()
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "input"))
    expected = [next(iterator)[0]["input_example_ids"].numpy() for _ in range(2)]
    again = iter(_dataset(files, tokenizer))
    for batch, _ in first:
        np.testing.assert_array_equal(next(again)[0]["input_word_ids"], batch["input_word_ids"])
    resumed = iter(dataset)
    tf.train.Checkpoint(iterator=resumed).restore(path)
    for batch in expected:
        np.testing.assert_array_equal(next(resumed)[0]["input_example_ids"].numpy(), batch)


def test_bad_max_examples_per_row(shakespeare_files, tokenizer):
    with pytest.raises(ValueError, match="max_examples_per_row must be >= 1"):
        _dataset(shakespeare_files[:2], tokenizer, max_examples_per_row=0)


def test_feeds_the_packed_pretrainer(shakespeare_files, tokenizer):
    from keras_bert.config import BertConfig
    from keras_bert.models.bert_pretrainer import BertPretrainer

    config = BertConfig(hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                        max_position_embeddings=64)
    model = BertPretrainer(config, packed=True)
    model.compile(optimizer="adam")
    history = model.fit(_dataset(shakespeare_files[:2], tokenizer), steps_per_epoch=2, epochs=1,
                        verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert 0 <= history.history["nsp_accuracy"][-1] <= 1
