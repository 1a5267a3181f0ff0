"""SquadTask: span targets for fit, a frozen pooler, EM / F1 from the official rules."""

import os

import keras
import numpy as np

from keras_bert.tasks.squad import SquadTask
from tests.tasks.conftest import FIXTURES

SQUAD_V1 = os.path.join(FIXTURES, "squad_v1.json")


def test_training_data_targets_the_span_logits(tokenizer):
    task = SquadTask(tokenizer, 64, 4, doc_stride=16, max_query_length=12)
    features, targets = next(iter(task.read(SQUAD_V1, training=True)))
    assert set(targets) == {"start_logits", "end_logits"}
    assert features["input_word_ids"].shape == (4, 64)
    assert task.read(SQUAD_V1, training=False) == SQUAD_V1  # evaluated on whole examples
    assert task.identity() == {"seq_length": 64, "batch_size": 4, "doc_stride": 16, "max_query_length": 12,
                               "max_answer_length": 30}


def test_model_freezes_the_pooler_and_evaluates(tokenizer, tiny_encoder):
    task = SquadTask(tokenizer, 64, 8, doc_stride=16, max_query_length=12)
    model = task.build_model(tiny_encoder)
    assert not tiny_encoder.get_layer("pooler").trainable
    model.compile(optimizer=keras.optimizers.Adam(1e-3), **task.compile_kwargs())
    scores = task.evaluate(model, None, SQUAD_V1)
    assert set(scores) == {"exact_match", "f1"} and all(0 <= v <= 100 for v in scores.values())
    assert np.isfinite(scores["f1"])
