"""PairClassificationTask: needs text_b; packs both texts as segments A and B."""

import os

import numpy as np
import pytest

from keras_bert.tasks.pair_classification import PairClassificationTask
from tests.tasks.conftest import FIXTURES


def test_text_b_is_required(tokenizer):
    with pytest.raises(ValueError, match="task 'pair_classification' needs text_b"):
        PairClassificationTask(tokenizer, text_a="sentence1")


def test_reads_both_sentences_and_builds_a_classifier(tokenizer, tiny_encoder):
    task = PairClassificationTask(tokenizer, 64, 4, text_a="sentence1", text_b="sentence2")
    task.fit_options(os.path.join(FIXTURES, "paraphrase.tsv"))  # the label vocabulary
    dataset = task.read(os.path.join(FIXTURES, "paraphrase.tsv"), training=True)
    features, _ = next(iter(dataset))
    types, mask = features["input_type_ids"].numpy(), features["input_mask"].numpy()
    assert np.all(types.max(-1) == 1) and np.all(types <= mask)  # every row has a segment B
    assert task.identity()["text_b"] == "sentence2"
    assert task.build_model(tiny_encoder)(features).shape == (types.shape[0], 2)
