"""tasks/masked_lm_serving.py: fill-mask served from ids (TF ops) equals its numpy reference; [MASK] stays whole."""

import numpy as np
import tensorflow as tf

import keras_bert
from keras_bert.export import ServingModule
from keras_bert.tasks.masked_lm_serving import MaskedLMServing, tokenize_keeping_masks_eager
from keras_bert.tasks.registry import serving_for
from tests.export.conftest import small_vocab, tiny_config, tokenizer  # noqa: F401 (export's small vocabulary)
from tests.export.helpers import randomize

TEXTS = ["the [MASK] is [MASK] .", "hello [MASK]", "no mask"]


def test_fill_mask_from_ids_equals_the_numpy_reference(tiny_config, tokenizer):
    model = randomize(keras_bert.build_pretrainer(tiny_config), seed=5)
    assert serving_for(model) is MaskedLMServing
    serving = ServingModule(model, tokenizer, seq_length=16, top_k=3).serving
    pieces = serving.tokenize(tf.constant(TEXTS))
    assert pieces.to_list() == tokenize_keeping_masks_eager(tokenizer, TEXTS, serving.mask_id).to_list()
    assert [row.count(serving.mask_id) for row in pieces.to_list()] == [2, 1, 0]
    rows = [[tokenizer.cls_id] + row + [tokenizer.sep_id] for row in pieces.to_list()]
    ids = np.array([row + [0] * (16 - len(row)) for row in rows], np.int32)
    inputs = {"input_word_ids": tf.constant(ids), "input_mask": tf.constant((ids != 0).astype(np.int32)),
              "input_type_ids": tf.zeros_like(ids)}
    got = serving.outputs_from_ids(inputs)
    want = serving.reference_outputs(inputs, model, tokens=False)
    np.testing.assert_array_equal(got["masked_lm_positions"], want["masked_lm_positions"])
    np.testing.assert_array_equal(got["top_k_ids"], want["top_k_ids"])
    np.testing.assert_allclose(got["top_k_probabilities"], want["top_k_probabilities"], atol=1e-5)
    masks = [[int(p) for p in np.nonzero(row == serving.mask_id)[0]] for row in ids]  # where the [MASK]s are
    assert [[p for p in row if p >= 0] for row in want["masked_lm_positions"].tolist()] == masks
