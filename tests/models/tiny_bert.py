"""A tiny BertConfig and hand-made encoder/pretraining batches shared by the model tests."""

import numpy as np

from keras_bert import BertConfig

TINY = BertConfig(vocab_size=60, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32,
                  max_position_embeddings=32)


def encoder_batch(batch=3, seq=8, lengths=(8, 5, 3), seed=0):
    rng = np.random.default_rng(seed)
    mask = np.array([[1] * n + [0] * (seq - n) for n in lengths], "int32")
    ids = rng.integers(5, 60, (batch, seq)).astype("int32") * mask
    types = np.zeros((batch, seq), "int32")
    types[:, seq // 2:] = 1
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types * mask}


def pretraining_batch(seed=0):
    batch = encoder_batch(seed=seed)
    rng = np.random.default_rng(seed)
    positions = np.array([[1, 2, 6, 0], [1, 3, 0, 0], [2, 0, 0, 0]], "int32")
    weights = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], "float32")
    labels = {"masked_lm_ids": rng.integers(5, 60, (3, 4)).astype("int32"),
              "masked_lm_weights": weights,
              "next_sentence_labels": np.array([0, 1, 0], "int32")}
    return dict(batch, masked_lm_positions=positions), labels


def randomized(model, seed=0):
    """`model` with random normal(0, 0.3) weights (a head's zero init would hide a wrong wiring)."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    return model
