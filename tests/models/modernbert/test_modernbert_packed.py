"""ModernBERT on packed rows (pretrain --family modernbert --pack_sequences): each example of a packed batch gets
the masked-LM losses it gets alone, and attention (global and +-2 local) stays inside each example.

The rows are packed by the real packer (`pack_examples`, TensorFlow) once, then handed to the models as numpy
arrays, so the file runs on every backend; the JAX/PyTorch matrix (tests/test_backends.py) leaves out the
per-example losses, as it does BERT's (`unpacked_losses`: ~10 s of tracing there), and runs the attention test
on PyTorch (JAX: the same mask in tests/layers/test_windowed_attention.py, ~9 CPU-s of XLA compiles saved).
"""

import warnings

import keras
import numpy as np
import pytest

from keras_bert.models import BertPretrainer
from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder
from tests.layers.layer_checks import to_numpy

SEQ, PREDICTIONS, EXAMPLES_PER_ROW, VOCAB = 32, 9, 3, 50
# Layers global, local (a token sees +-2: the band of a boundary token reaches into its neighbour), global.
# Weights drawn wide (0.2, not 0.02) so attention moves the losses: a local layer that looked across an example's
# boundary changes them by up to 0.86 here (at 0.02: 3e-4, within the tolerance).
CONFIG = ModernBertConfig(vocab_size=VOCAB, hidden_size=32, num_layers=3, num_heads=2, intermediate_size=48,
                          global_attn_every_n_layers=2, local_attention=4, max_position_embeddings=SEQ,
                          initializer_range=0.2)
LENGTHS = (12, 9, 5, 11, 7, 8, 10, 6)  # 8 examples: 3 rows of at most 3


def _unpacked_batch():
    """One example a row (right-padded), 3 masked positions each, with their labels."""
    rng = np.random.default_rng(0)
    count = len(LENGTHS)
    mask = (np.arange(SEQ)[None] < np.array(LENGTHS)[:, None]).astype("int32")
    ids = rng.integers(3, VOCAB, (count, SEQ)).astype("int32") * mask
    positions = np.zeros((count, PREDICTIONS), "int32")
    weights = np.zeros((count, PREDICTIONS), "float32")
    for row, length in enumerate(LENGTHS):
        positions[row, :3] = np.sort(rng.choice(np.arange(1, length), 3, replace=False))
        weights[row, :3] = 1.0
    labels = {"masked_lm_ids": np.take_along_axis(ids, positions, 1) * (weights > 0), "masked_lm_weights": weights}
    ids[np.arange(count)[:, None], positions[:, :3]] = 2  # the mask token
    features = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids),
                "masked_lm_positions": positions}
    return features, labels


@pytest.fixture(scope="module")
def batches():
    from keras_bert.data.packing import pack_examples

    features, labels = _unpacked_batch()
    packed = pack_examples(features, labels, SEQ, PREDICTIONS, EXAMPLES_PER_ROW)
    return (features, labels), tuple({k: np.asarray(v) for k, v in d.items()} for d in packed)


@pytest.fixture(scope="module")
def models():
    keras.utils.set_random_seed(0)
    model = BertPretrainer(CONFIG)
    return model, model.with_packing(True)


def _per_example_mlm_losses(features, labels, mlm_logits, packed):
    """{example tokens: masked-LM cross-entropy of each of its masked tokens}."""
    ids, positions = features["input_word_ids"], features["masked_lm_positions"]
    mlm = to_numpy(keras.losses.sparse_categorical_crossentropy(labels["masked_lm_ids"], mlm_logits,
                                                                 from_logits=True))
    losses = {}
    for row in range(ids.shape[0]):
        example_ids = features["input_example_ids" if packed else "input_mask"][row]
        for slot in range(1, EXAMPLES_PER_ROW + 1 if packed else 2):
            where = np.flatnonzero(example_ids == slot)
            if where.size:
                mine = (labels["masked_lm_weights"][row] > 0) & np.isin(positions[row], where)
                losses[tuple(ids[row, where])] = mlm[row][mine]
    return losses


def test_packed_batch_gives_each_example_its_unpacked_losses(batches, models):
    (features, labels), (packed_features, packed_labels) = batches
    model, packed_model = models
    assert packed_features["input_word_ids"].shape[0] == 3 and packed_model.encoder.packed
    examples_per_row = packed_features["input_example_ids"].max(axis=1)
    assert examples_per_row.tolist() == [3, 3, 2]
    outputs = model(features)
    alone = _per_example_mlm_losses(features, labels, outputs["mlm_logits"], packed=False)
    with warnings.catch_warnings():  # the rows' `next_sentence_positions` (no NSP here) are left out, unread
        warnings.filterwarnings("error", message="The structure of `inputs` doesn't match")
        packed_outputs = packed_model(packed_features)
    together = _per_example_mlm_losses(packed_features, packed_labels, packed_outputs["mlm_logits"], packed=True)
    assert sorted(alone) == sorted(together) and len(alone) == len(LENGTHS)
    for tokens, losses in alone.items():
        assert losses.shape == (3,)
        np.testing.assert_allclose(together[tokens], losses, rtol=1e-4, atol=1e-4)
    loss = model.compute_loss(y=labels, y_pred=outputs)
    packed_loss = packed_model.compute_loss(y=packed_labels, y_pred=packed_outputs)
    np.testing.assert_allclose(to_numpy(packed_loss), to_numpy(loss), rtol=1e-5)


def test_attention_stays_inside_each_example(batches, models):
    """Each row's first example gets other tokens: its outputs change, every other example's stay (all rows:
    the batch shape the loss test compiled, so JAX and PyTorch trace no other)."""
    _, packed_model = models
    _, (packed_features, _) = batches
    rows = {k: packed_features[k] for k in packed_model.encoder.input}
    example_ids = rows["input_example_ids"]
    changed = dict(rows, input_word_ids=np.where(example_ids == 1, 7, rows["input_word_ids"]))
    before, after = (to_numpy(packed_model.encoder(x)["sequence_output"]) for x in (rows, changed))
    first, others = example_ids == 1, example_ids > 1
    assert np.abs(after[first] - before[first]).max() > 1e-3
    np.testing.assert_allclose(after[others], before[others], atol=1e-6)
    # Example 2 starts right after example 1: the local layer's +-2 band crossed that boundary.
    assert all(ids[int(np.flatnonzero(ids == 1)[-1]) + 1] == 2 for ids in example_ids)


def test_packed_encoder_round_trips_with_the_same_weights(models):
    model, packed_model = models
    assert sorted(packed_model.encoder.input) == ["input_example_ids", "input_mask", "input_position_ids",
                                                  "input_type_ids", "input_word_ids"]
    assert sorted(model.encoder.input) == ["input_mask", "input_type_ids", "input_word_ids"]
    restored = ModernBertEncoder.from_config(packed_model.encoder.get_config())
    assert restored.packed and not ModernBertEncoder.from_config(model.encoder.get_config()).packed
    unpacked = packed_model.with_packing(False)
    assert not unpacked.packed and unpacked.count_params() == model.count_params()


def test_packed_rows_with_a_next_sentence_head_are_refused_in_one_line():
    """ModernBERT has no BERT pooler to read each packed example's [CLS]: its packed pretraining is masked LM only."""
    with pytest.raises(ValueError, match=r"^ModernBertEncoder has no pooler to read each packed example's \[CLS\] "
                                         r"for the next-sentence head: pass next_sentence=False \(masked LM only\) "
                                         r"or packed=False\.$"):
        BertPretrainer(CONFIG, packed=True, next_sentence=True)
