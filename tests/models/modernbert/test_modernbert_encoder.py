"""ModernBertEncoder equals transformers' ModernBertModel / ModernBertForMaskedLM (eager and sdpa) on a
seeded folder with padding; its outputs, pooled head, config round trip and one-line folder errors."""

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.layers import ModernBertMaskedLMHead
from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder, encoder_from_huggingface
from tests.layers.layer_checks import to_numpy
from tests.models.modernbert.tiny_modernbert import hf_outputs, padded_batch

TOLERANCE = 1e-4  # float32; measured ~1e-6 (tools/_modernbert_parity.py)
# Both layer kinds at lengths inside and far beyond the +-8 window, each batch right-padded.
BATCHES = [padded_batch(16, (16, 9)), padded_batch(300, (300, 133, 17), seed=1)]


def real_diff(a, b, mask):
    return float(np.abs(a - b)[mask.astype(bool)].max())


@pytest.fixture(scope="module")
def loaded(modernbert_mlm_dir):
    return encoder_from_huggingface(modernbert_mlm_dir)


def test_sequence_output_equals_modernbert_model_eager_and_sdpa(loaded, modernbert_mlm_dir):
    encoder, _ = loaded
    for batch in BATCHES:
        ours = to_numpy(encoder(batch)["sequence_output"])
        for attn_implementation in ("eager", "sdpa"):
            theirs = hf_outputs(modernbert_mlm_dir, "ModernBertModel", batch, attn_implementation)
            assert real_diff(ours, theirs, batch["input_mask"]) <= TOLERANCE, attn_implementation


def test_masked_lm_logits_equal_modernbert_for_masked_lm(loaded, modernbert_mlm_dir):
    encoder, tensors = loaded
    head = ModernBertMaskedLMHead(encoder.config.vocab_size, prediction_head=encoder.head,
                                  embedding_layer=encoder.embeddings)
    batch = BATCHES[1]
    sequence = encoder(batch)["sequence_output"]
    head(sequence)  # builds the decoder bias
    head.bias.assign(tensors["decoder.bias"])
    ours = to_numpy(head(sequence))
    theirs = hf_outputs(modernbert_mlm_dir, "ModernBertForMaskedLM", batch)
    assert real_diff(ours, theirs, batch["input_mask"]) <= TOLERANCE


def test_outputs_padding_invariance_and_token_types_ignored(loaded):
    encoder, _ = loaded
    batch = BATCHES[0]
    out = encoder(batch)
    assert tuple(out["sequence_output"].shape) == (2, 16, 64) and tuple(out["pooled_output"].shape) == (2, 64)
    assert len(out["encoder_outputs"]) == 3
    np.testing.assert_allclose(to_numpy(out["pooled_output"]), to_numpy(encoder.head(out["sequence_output"][:, 0])),
                               atol=1e-6)  # classifier_pooling "cls"
    more = {k: np.pad(v, ((0, 0), (0, 7))) for k, v in dict(batch, input_type_ids=batch["input_type_ids"] * 0).items()}
    out_more = encoder(more)
    for row, n in enumerate((16, 9)):
        np.testing.assert_allclose(to_numpy(out_more["sequence_output"])[row, :n],
                                   to_numpy(out["sequence_output"])[row, :n], atol=1e-5)


def test_config_round_trip_and_named_variables(tmp_path):
    config = ModernBertConfig(vocab_size=50, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=24,
                              classifier_pooling="mean", norm_bias=True)
    encoder = ModernBertEncoder(config)
    clone = ModernBertEncoder.from_config(encoder.get_config())
    assert clone.config == config and clone.get_config() == encoder.get_config()
    names = [name for name, _, _ in encoder.named_variables()]
    assert len(names) == len(encoder.weights) and "layers.0.attn_norm.weight" not in names
    transposed = {name for name, _, t in encoder.named_variables() if t}
    assert transposed == {n for n in names if n.endswith(".weight") and ("W" in n or "dense" in n)}
    path = str(tmp_path / "modernbert.keras")
    encoder.save(path)
    restored = keras.saving.load_model(path)
    batch = padded_batch(10, (10, 4), vocab_size=50)
    np.testing.assert_allclose(to_numpy(restored(batch)["pooled_output"]), to_numpy(encoder(batch)["pooled_output"]),
                               atol=1e-6)


def test_a_folder_without_weights_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"has no model.safetensors; a Hugging Face ModernBERT folder"):
        encoder_from_huggingface(str(tmp_path))


def test_packed_rows_build_a_packed_encoder():
    """pretrain --family modernbert --pack_sequences (was refused in one line): the pretrainer builds packed,
    its encoder taking BertEncoder's two packed-row inputs (numbers: test_modernbert_packed)."""
    config = ModernBertConfig(vocab_size=32, hidden_size=8, num_layers=1, num_heads=2, intermediate_size=8)
    model = keras_bert.models.BertPretrainer(config, packed=True)
    assert model.packed and model.encoder.packed and not model.next_sentence
    assert {"input_example_ids", "input_position_ids"} <= set(model.encoder.input)
