"""ModernBERT's HF names: prefix mapping, both ways with transformers, the sequence head as pooler + classifier,
and one-line errors for a missing or mis-shaped weight."""

import numpy as np
import pytest

from keras_bert.models.modernbert import (
    MODERNBERT, ModernBertEncoder, encoder_from_huggingface, encoder_tensors, load_encoder_weights,
    to_canonical, to_huggingface)
from tests.layers.layer_checks import to_numpy
from tests.models.modernbert.tiny_modernbert import hf_outputs, padded_batch, save_seeded


def test_names_map_both_ways():
    assert to_canonical("model.layers.2.mlp.Wi.weight") == "layers.2.mlp.Wi.weight"
    assert to_huggingface("layers.2.mlp.Wi.weight") == "model.layers.2.mlp.Wi.weight"
    assert to_huggingface("head.dense.weight") == to_canonical("head.dense.weight") == "head.dense.weight"
    converter = MODERNBERT.converter  # its HF classes, named by its converter
    assert converter.architecture("ForMaskedLM") == "ModernBertForMaskedLM" and converter.architecture("Model") == (
        "ModernBertModel")


def test_sequence_classification_is_the_pooled_output_and_a_classifier(tmp_path):
    """HF's ModernBertForSequenceClassification = classifier(head(mean-pool(last_hidden_state))): the
    encoder's pooled_output (head as the family's pooler) then a dense layer with `classifier.*`."""
    folder = save_seeded(str(tmp_path), "ModernBertForSequenceClassification", classifier_pooling="mean",
                         num_labels=3, classifier_bias=True, norm_bias=True)
    encoder, tensors = encoder_from_huggingface(folder)
    assert encoder.config.classifier_pooling == "mean" and encoder.config.norm_bias
    batch = padded_batch(40, (40, 23, 5), seed=2)
    pooled = to_numpy(encoder(batch)["pooled_output"])
    logits = pooled @ tensors["classifier.weight"].T + tensors["classifier.bias"]
    expected = hf_outputs(folder, "ModernBertForSequenceClassification", batch)
    assert np.abs(logits - expected).max() <= 1e-4


def test_token_classification_is_the_head_per_token_and_a_classifier(tmp_path):
    """HF's ModernBertForTokenClassification (and ...ForQuestionAnswering, 2 labels) = classifier(head(
    last_hidden_state)) per token: the encoder's `head` on `sequence_output`, then `classifier.*`."""
    folder = save_seeded(str(tmp_path), "ModernBertForTokenClassification", num_labels=5)
    encoder, tensors = encoder_from_huggingface(folder)
    batch = padded_batch(30, (30, 12), seed=4)
    features = to_numpy(encoder.head(encoder(batch)["sequence_output"]))
    logits = features @ tensors["classifier.weight"].T + tensors["classifier.bias"]
    expected = hf_outputs(folder, "ModernBertForTokenClassification", batch)
    real = batch["input_mask"].astype(bool)
    assert np.abs(logits - expected)[real].max() <= 1e-4


def test_keras_weights_written_back_give_transformers_the_same_outputs(modernbert_mlm_dir):
    import torch
    import transformers

    encoder, tensors = encoder_from_huggingface(modernbert_mlm_dir)
    config = transformers.ModernBertConfig.from_pretrained(modernbert_mlm_dir)
    fresh = transformers.ModernBertForMaskedLM(config).eval()
    state = {name: torch.from_numpy(value) for name, value in encoder_tensors(encoder).items()}
    state["decoder.bias"] = torch.from_numpy(tensors["decoder.bias"])
    missing, unexpected = fresh.load_state_dict(state, strict=False)
    assert not unexpected and set(missing) <= {"decoder.weight"}  # tied to the token embeddings
    batch = padded_batch(24, (24, 11), seed=3)
    with torch.no_grad():
        theirs = fresh(input_ids=torch.tensor(batch["input_word_ids"], dtype=torch.long),
                       attention_mask=torch.tensor(batch["input_mask"])).logits.numpy()
    real = batch["input_mask"].astype(bool)  # padded rows differ between HF's own sdpa and eager paths
    expected = hf_outputs(modernbert_mlm_dir, "ModernBertForMaskedLM", batch, "sdpa")
    np.testing.assert_allclose(theirs[real], expected[real], atol=1e-6)


def test_a_base_model_file_leaves_only_the_head_and_bad_files_are_one_line(modernbert_mlm_dir):
    encoder, tensors = encoder_from_huggingface(modernbert_mlm_dir)
    base = {to_canonical(k): v for k, v in tensors.items() if k.startswith("model.")}  # ModernBertModel's names
    fresh = ModernBertEncoder(encoder.config)
    assert load_encoder_weights(fresh, base) == ["head.dense.weight", "head.norm.weight"]
    with pytest.raises(ValueError, match=r"model.safetensors has no weight 'model.final_norm.weight'; is it"):
        load_encoder_weights(fresh, {k: v for k, v in tensors.items() if "final_norm" not in k},
                             source="model.safetensors")
    bad = dict(tensors, **{"model.layers.1.mlp.Wo.weight": np.zeros((64, 5), "float32")})
    with pytest.raises(ValueError, match=r"layers.1.mlp.Wo.weight has shape \(5, 64\) but the config.json gives"):
        load_encoder_weights(fresh, bad)


def test_the_weights_file_is_read_one_tensor_at_a_time(modernbert_mlm_dir):
    """encoder_from_huggingface holds one tensor beside the variables, not a copy of the whole file:
    load_encoder_weights reads each encoder weight once, and never a head's (`decoder.bias`)."""
    from collections.abc import Mapping

    from keras_bert.models.modernbert.modernbert_encoder import SafetensorsFile

    encoder, tensors = encoder_from_huggingface(modernbert_mlm_dir)
    assert isinstance(tensors, SafetensorsFile) and "decoder.bias" in tensors and len(tensors) == len(set(tensors))
    reads = []

    class Recorded(Mapping):
        def __getitem__(self, name):
            reads.append(name)
            return tensors[name]

        def __iter__(self):
            return iter(tensors)

        def __len__(self):
            return len(tensors)

    load_encoder_weights(ModernBertEncoder(encoder.config), Recorded())
    assert len(reads) == len(set(reads)) == len(encoder.weights) and "decoder.bias" not in reads
