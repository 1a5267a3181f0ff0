"""Packed rows (several examples per row) give each example the losses it has alone."""

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

SEQ, PREDICTIONS, EXAMPLES_PER_ROW = 64, 10, 3
CONFIG = BertConfig(vocab_size=30522, hidden_size=16, num_layers=2, num_heads=2,
                    intermediate_size=32, max_position_embeddings=SEQ, dropout_rate=0.0,
                    attention_dropout_rate=0.0)


@pytest.fixture(scope="module")
def unpacked(minilm_dir, shakespeare_files):
    """24 real masked NSP examples, many of them short (short_seq_prob=0.5)."""
    tokenizer = Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    dataset = pretraining_dataset(shakespeare_files[:4], tokenizer, seq_length=SEQ,
                                  max_predictions_per_seq=PREDICTIONS, batch_size=24,
                                  short_seq_prob=0.5, repeat=False, seed=3)
    return next(iter(dataset))


@pytest.fixture(scope="module")
def models():
    keras.utils.set_random_seed(0)
    model = BertPretrainer(CONFIG)
    return model, model.with_packing(True)


def _per_example_losses(features, labels, outputs, packed):
    """{example tokens: (MLM cross-entropy per masked token, NSP cross-entropy)}."""
    ids = features["input_word_ids"].numpy()
    positions = features["masked_lm_positions"].numpy()
    mlm = keras.losses.sparse_categorical_crossentropy(
        labels["masked_lm_ids"], outputs["mlm_logits"], from_logits=True).numpy()
    nsp = keras.losses.sparse_categorical_crossentropy(
        labels["next_sentence_labels"], outputs["nsp_logits"], from_logits=True).numpy()
    weights = labels["masked_lm_weights"].numpy()
    losses = {}
    for row in range(ids.shape[0]):
        example_ids = (features["input_example_ids"].numpy()[row] if packed
                       else features["input_mask"].numpy()[row])
        for slot in range(EXAMPLES_PER_ROW if packed else 1):
            where = np.flatnonzero(example_ids == slot + 1)
            if not where.size:
                continue
            mine = (weights[row] > 0) & np.isin(positions[row], where)
            losses[tuple(ids[row, where])] = (mlm[row][mine], nsp[row, slot] if packed else nsp[row])
    return losses


def test_packed_batch_gives_each_example_its_unpacked_losses(unpacked, models):
    features, labels = unpacked
    model, packed_model = models
    packed_features, packed_labels = pack_examples(features, labels, SEQ, PREDICTIONS,
                                                   EXAMPLES_PER_ROW)
    rows = packed_features["input_word_ids"].shape[0]
    assert rows < 24 and np.any(packed_labels["next_sentence_weights"].numpy()[:, 1])

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
    np.testing.assert_allclose(packed_loss, loss, rtol=1e-5)


def test_attention_stays_inside_each_example(unpacked, models):
    _, packed_model = models
    features, labels = unpacked
    packed_features, _ = pack_examples(features, labels, SEQ, PREDICTIONS, EXAMPLES_PER_ROW)
    row = int(np.argmax(packed_features["next_sentence_positions"].numpy()[:, 1]))
    example_ids = packed_features["input_example_ids"].numpy()[row]
    one = {k: packed_features[k][row:row + 1] for k in packed_model.encoder.input}
    changed = dict(one, input_word_ids=tf.where(example_ids[None] == 1, 1000, one["input_word_ids"]))
    before = packed_model.encoder(one)["sequence_output"].numpy()[0]
    after = packed_model.encoder(changed)["sequence_output"].numpy()[0]
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


def test_fit_on_packed_pipeline(minilm_dir, shakespeare_files, models):
    _, packed_model = models
    tokenizer = Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    dataset = pretraining_dataset(shakespeare_files[:4], tokenizer, seq_length=SEQ,
                                  max_predictions_per_seq=PREDICTIONS, batch_size=4,
                                  pack_sequences=True, shuffle_buffer=8, seed=0)
    model = packed_model.with_packing(False).with_packing(True)
    model.compile(optimizer="adam")
    history = model.fit(dataset, steps_per_epoch=2, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert 0 <= history.history["nsp_accuracy"][-1] <= 1


_OTHER_BACKEND_CHECK = """
import keras, numpy as np
from keras_bert.config import BertConfig
from keras_bert.models.bert_pretrainer import BertPretrainer
config = BertConfig(vocab_size=50, hidden_size=8, num_layers=1, num_heads=2, intermediate_size=16,
                    max_position_embeddings=16, dropout_rate=0.0, attention_dropout_rate=0.0)
plain = BertPretrainer(config)
packed = plain.with_packing(True)
i32 = lambda v: np.asarray(v, "int32")
row = packed({"input_word_ids": i32([[2, 5, 6, 3, 2, 7, 3, 0]]), "input_mask": i32([[1] * 7 + [0]]),
              "input_type_ids": i32(np.zeros((1, 8))), "input_example_ids": i32([[1] * 4 + [2] * 3 + [0]]),
              "input_position_ids": i32([[0, 1, 2, 3, 0, 1, 2, 0]]), "masked_lm_positions": i32([[1, 5]]),
              "next_sentence_positions": i32([[0, 4]])})
alone = plain({"input_word_ids": i32([[2, 7, 3, 0]]), "input_mask": i32([[1, 1, 1, 0]]),
               "input_type_ids": i32(np.zeros((1, 4))), "masked_lm_positions": i32([[1]])})
numpy = keras.ops.convert_to_numpy
np.testing.assert_allclose(numpy(row["mlm_logits"])[0, 1], numpy(alone["mlm_logits"])[0, 0], atol=1e-6)
np.testing.assert_allclose(numpy(row["nsp_logits"])[0, 1], numpy(alone["nsp_logits"])[0], atol=1e-6)
print("ok", keras.backend.backend())
"""


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_packed_rows_on_other_backends(backend):
    """The block-diagonal mask and per-example positions are keras.ops: same numbers on JAX, torch."""
    import subprocess
    import sys

    pytest.importorskip(backend)
    env = dict(os.environ, KERAS_BACKEND=backend)
    result = subprocess.run([sys.executable, "-c", _OTHER_BACKEND_CHECK], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0 and f"ok {backend}" in result.stdout, result.stderr[-2000:]
