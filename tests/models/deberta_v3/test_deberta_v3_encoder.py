"""DebertaV3Encoder equals transformers' DebertaV2Model on seeded folders with padding rows: DeBERTa-v3's settings
at length 512 (the one test at 512), v2's (no buckets, own position projections, token types, absolute positions)
at 64, past its relative span (every head at 64: test_deberta_v3_converter.py); its config round trip; packed rows
refused in one line."""

import warnings

import numpy as np
import pytest

from keras_bert import load_checkpoint
from keras_bert.models.deberta_v3 import DebertaV3Config, DebertaV3Encoder
from tests.layers.layer_checks import to_numpy
from tests.models.deberta_v3.tiny_deberta import V2_HF, hf_model, hf_outputs, padded_batch, save_seeded

TOLERANCE = 1e-4  # float32; measured <= 1.2e-6 on real tokens


def load(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a DebertaV2Model folder has no pooler, and no tokenizer here
        return load_checkpoint(folder)


def test_sequence_output_equals_debertav2model_with_and_without_buckets(deberta_folders, tmp_path):
    v2 = save_seeded(str(tmp_path), "DebertaV2Model", seed=7, **V2_HF)
    for folder, lengths in ((deberta_folders["Model"], (512,)), (v2, (64,))):
        encoder, reference = load(folder), hf_model(folder, "DebertaV2Model")
        assert isinstance(encoder, DebertaV3Encoder)
        for seq in lengths:  # distances past the buckets' (v3) and the span's (v2) ends
            batch = padded_batch(seq, (seq, seq // 2 + 1), seed=seq, type_vocab_size=encoder.config.type_vocab_size)
            ours = to_numpy(encoder(batch)["sequence_output"])
            theirs = hf_outputs(reference, batch)["last_hidden_state"]
            # padding rows too: their embeddings are zeroed and their attention uniform, as in HF
            assert float(np.abs(ours - theirs).max()) <= TOLERANCE, (folder, seq)


def test_outputs_config_round_trip_and_packed_rows_refused(deberta_folders):
    encoder = load(deberta_folders["Model"])
    batch = padded_batch(8, (8, 5))
    out = encoder(batch)
    assert [tuple(out[k].shape) for k in ("sequence_output", "pooled_output")] == [(2, 8, 32), (2, 32)]
    assert len(out["encoder_outputs"]) == 2 and "pooler" in encoder.pooler.name
    rebuilt = DebertaV3Encoder.from_config(encoder.get_config())
    assert rebuilt.config == encoder.config and len(rebuilt.weights) == len(encoder.weights)
    names = [name for name, _, _ in encoder.named_variables()]
    assert "bert/encoder/rel_embeddings" in names and "bert/embeddings/token_type_embeddings" not in names
    assert len(names) == len(set(names)) == len(encoder.weights)
    with pytest.raises(ValueError, match="^DebertaV3Encoder does not take packed rows"):
        DebertaV3Encoder(DebertaV3Config(vocab_size=10, hidden_size=8, num_layers=1, num_heads=2), packed=True)
