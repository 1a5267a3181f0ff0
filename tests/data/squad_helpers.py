"""The SQuAD fixture files, the small windows the tests cut them into, one-hot gold logits."""

import os

import numpy as np

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
V1 = os.path.join(FIXTURES, "squad_v1.json")
V2 = os.path.join(FIXTURES, "squad_v2.json")
# Small windows so the long Eiffel Tower paragraph (~250 pieces) is cut into many windows.
SEQ_LENGTH, DOC_STRIDE = 64, 16


def one_hot_logits(features):
    n, seq_length = features["input_word_ids"].shape
    start_logits, end_logits = np.zeros([n, seq_length]), np.zeros([n, seq_length])
    start_logits[np.arange(n), features["start_positions"]] = 1.0
    end_logits[np.arange(n), features["end_positions"]] = 1.0
    return start_logits, end_logits
