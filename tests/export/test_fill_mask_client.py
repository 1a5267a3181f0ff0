"""fill_mask (Keras) and export_and_query_fill_mask (SavedModel): one graph, the same answers."""

import numpy as np
import pytest

import keras_bert
from keras_bert.export import ServingModule, export_and_query_fill_mask, fill_mask
from keras_bert.export.models_config import read_model_names
from keras_bert.export.verify_reference import keras_outputs, text_to_ids
from tests.export.helpers import randomize


@pytest.fixture(scope="module")
def pretrainer(tiny_config):
    return randomize(keras_bert.build_pretrainer(tiny_config), seed=5)


def test_fill_mask_returns_top_k_tokens_per_mask(pretrainer, tokenizer):
    results = fill_mask(pretrainer, tokenizer, ["the [MASK] is [MASK] .", "hello [MASK]"], top_k=3)
    assert [len(r) for r in results] == [2, 1]
    for masks in results:
        for candidates in masks:
            assert len(candidates) == 3
            probabilities = [p for _, p in candidates]
            assert probabilities == sorted(probabilities, reverse=True)
            assert all(isinstance(token, str) for token, _ in candidates)


def test_fill_mask_refuses_texts_without_a_mask_or_too_long(pretrainer, tokenizer):
    with pytest.raises(ValueError, match=r"needs a \[MASK\]"):
        fill_mask(pretrainer, tokenizer, ["no mask here"])
    with pytest.raises(ValueError, match="at most 512"):
        fill_mask(pretrainer, tokenizer, ["word " * 600 + "[MASK]"])


@pytest.mark.slow
def test_export_and_query_fill_mask(pretrainer, tokenizer, tmp_path):
    query = "The capital of France is [MASK]."
    result = export_and_query_fill_mask(pretrainer, tokenizer, "tiny_mlm", query=query,
                                        base_dir=str(tmp_path), seq_length=32, top_k=4)
    assert result["version"] == 1 and result["report"].ok
    assert read_model_names(tmp_path / "models.config") == ["tiny_mlm"]
    (answer,) = result["answers"]
    (predictions,) = answer  # one [MASK]
    module = ServingModule(pretrainer, tokenizer, seq_length=32, top_k=4)
    expected = keras_outputs(module.serving, text_to_ids(module.serving, [query]))
    assert [token for token, _ in predictions] == [t.decode() for t in expected["top_k_tokens"][0, 0]]
    np.testing.assert_allclose([p for _, p in predictions], expected["top_k_probabilities"][0, 0], atol=1e-6)
    (keras_answer,) = fill_mask(pretrainer, tokenizer, [query], top_k=4)
    assert [t for t, _ in keras_answer[0]] == [t for t, _ in predictions]
    np.testing.assert_allclose([p for _, p in keras_answer[0]], [p for _, p in predictions], atol=1e-6)
