"""Packed rows (several examples per row) give each example the losses it has alone.

Runs on every backend (tests/test_backends.py): the batches are made with tf.data once and
handed to the models as numpy arrays.
"""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.config import BertConfig
from keras_bert.data.packing import pack_examples
from keras_bert.data.pretraining import pretraining_dataset
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.text.tokenizer import Tokenizer
from tests.layers.layer_checks import to_numpy

SEQ, PREDICTIONS, EXAMPLES_PER_ROW = 64, 10, 3
CONFIG = BertConfig(vocab_size=30522, hidden_size=16, num_layers=2, num_heads=2,
                    intermediate_size=32, max_position_embeddings=SEQ, dropout_rate=0.0,
                    attention_dropout_rate=0.0)


@pytest.fixture(scope="module")
def batches(minilm_dir, shakespeare_files):
    """The 24 shortest of 64 real masked NSP examples, unpacked and packed."""
    tokenizer = Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    dataset = pretraining_dataset(shakespeare_files[:4], tokenizer, seq_length=SEQ,
                                  max_predictions_per_seq=PREDICTIONS, batch_size=64,
                                  short_seq_prob=0.9, repeat=False, seed=3)
    features, labels = next(iter(dataset))
    shortest = tf.argsort(tf.reduce_sum(features["input_mask"], 1))[:24]
    features, labels = ({key: tf.gather(value, shortest) for key, value in d.items()}
                        for d in (features, labels))
    packed = pack_examples(features, labels, SEQ, PREDICTIONS, EXAMPLES_PER_ROW)
    return _numpy(features, labels), _numpy(*packed)


def _numpy(*dicts):
    return tuple({key: value.numpy() for key, value in d.items()} for d in dicts)


@pytest.fixture(scope="module")
def models():
    keras.utils.set_random_seed(0)
    model = BertPretrainer(CONFIG)
    return model, model.with_packing(True)


def _per_example_losses(features, labels, outputs, packed):
    """{example tokens: (MLM cross-entropy per masked token, NSP cross-entropy)}."""
    ids, positions = features["input_word_ids"], features["masked_lm_positions"]
    mlm = to_numpy(keras.losses.sparse_categorical_crossentropy(
        labels["masked_lm_ids"], outputs["mlm_logits"], from_logits=True))
    nsp = to_numpy(keras.losses.sparse_categorical_crossentropy(
        labels["next_sentence_labels"], outputs["nsp_logits"], from_logits=True))
    weights = labels["masked_lm_weights"]
    losses = {}
    for row in range(ids.shape[0]):
        example_ids = features["input_example_ids" if packed else "input_mask"][row]
        for slot in range(EXAMPLES_PER_ROW if packed else 1):
            where = np.flatnonzero(example_ids == slot + 1)
            if not where.size:
                continue
            mine = (weights[row] > 0) & np.isin(positions[row], where)
            losses[tuple(ids[row, where])] = (mlm[row][mine], nsp[row, slot] if packed else nsp[row])
    return losses


def test_packed_batch_gives_each_example_its_unpacked_losses(batches, models):
    (features, labels), (packed_features, packed_labels) = batches
    model, packed_model = models
    rows = packed_features["input_word_ids"].shape[0]
    assert rows < 24 and np.any(packed_labels["next_sentence_weights"][:, 1])

    alone = _per_example_losses(features, labels, model(features), packed=False)
    together = _per_example_losses(packed_features, packed_labels,
                                   packed_model(packed_features), packed=True)
    assert sorted(alone) == sorted(together) and len(alone) == 24
    for tokens, (mlm, nsp) in alone.items():
        np.testing.assert_allclose(together[tokens][0], mlm, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(together[tokens][1], nsp, rtol=1e-4, atol=1e-5)
    # The batch loss (mean MLM over masked tokens + mean NSP over examples) too.
    loss = model.compute_loss(y=labels, y_pred=model(features))
    packed_loss = packed_model.compute_loss(y=packed_labels, y_pred=packed_model(packed_features))
    np.testing.assert_allclose(to_numpy(packed_loss), to_numpy(loss), rtol=1e-5)


def test_attention_stays_inside_each_example(batches, models):
    _, packed_model = models
    _, (packed_features, _) = batches
    row = int(np.argmax(packed_features["next_sentence_positions"][:, 1]))
    example_ids = packed_features["input_example_ids"][row]
    one = {k: packed_features[k][row:row + 1] for k in packed_model.encoder.input}
    changed = dict(one, input_word_ids=np.where(example_ids[None] == 1, 1000, one["input_word_ids"]))
    before = to_numpy(packed_model.encoder(one)["sequence_output"])[0]
    after = to_numpy(packed_model.encoder(changed)["sequence_output"])[0]
    first, others = example_ids == 1, example_ids > 1
    assert np.abs(after[first] - before[first]).max() > 1e-3
    np.testing.assert_allclose(after[others], before[others], atol=1e-6)


def test_packed_model_round_trips_and_default_inputs_keep_tf_hub_names(models):
    model, packed_model = models
    assert sorted(model.encoder.input) == ["input_mask", "input_type_ids", "input_word_ids"]
    assert sorted(packed_model.input) == sorted(
        ["input_word_ids", "input_mask", "input_type_ids", "input_example_ids",
         "input_position_ids", "masked_lm_positions", "next_sentence_positions"])
    restored = BertPretrainer.from_config(packed_model.get_config())
    assert restored.packed and restored.encoder.packed
    assert packed_model.with_packing(False).count_params() == model.count_params()
    with pytest.raises(ValueError, match="packed=True"):
        BertPretrainer(CONFIG, encoder=BertEncoder(CONFIG), packed=True)

