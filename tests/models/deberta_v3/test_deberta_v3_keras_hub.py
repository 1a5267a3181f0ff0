"""DEBERTA_V3_PRESET: save_checkpoint(format="keras_hub") writes a DebertaV3Backbone + DebertaV3Tokenizer preset that
keras-hub loads to our outputs and ids; load_checkpoint reads it back."""

import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models.deberta_v3 import DebertaV3Encoder
from tests.models.deberta_v3.tiny_deberta import padded_batch, save_seeded, save_tokenizer

TOLERANCE = 1e-4


def test_keras_hub_presets_both_ways(tmp_path, shakespeare_files):
    """save_checkpoint(format="keras_hub") writes a DebertaV3Backbone + DebertaV3Tokenizer preset that keras-hub
    loads to our sequence_output on real tokens (its padded rows differ: it does not zero them) and our ids;
    load_checkpoint reads the preset back to the same outputs and an "spm" text contract."""
    keras_hub = pytest.importorskip("keras_hub")
    from keras_bert.text.text_config import TextConfig

    with open(shakespeare_files[0], encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()][:2000]
    folder = save_seeded(str(tmp_path / "hf"), "DebertaV2Model", seed=9, vocab_size=301, max_relative_positions=-1)
    save_tokenizer(folder, lines)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = load_checkpoint(folder)
        save_checkpoint(encoder, str(tmp_path / "preset"), format="keras_hub")  # warns: no pooler there
        back = load_checkpoint(str(tmp_path / "preset"))
    assert isinstance(back, DebertaV3Encoder) and back.text_config.kind == "spm"
    backbone = keras_hub.models.DebertaV3Backbone.from_preset(str(tmp_path / "preset"))
    tokenizer = keras_hub.models.DebertaV3Tokenizer.from_preset(str(tmp_path / "preset"))
    ours = TextConfig.from_dir(folder).tokenizer()
    assert [list(map(int, tokenizer(line))) for line in lines[:20]] == ours.tokenize(lines[:20]).to_list()
    for seq in (64,):  # distances in the log buckets (512: test_deberta_v3_encoder.py)
        batch = padded_batch(seq, (seq, seq // 2 + 1), seed=seq)
        mine = keras.ops.convert_to_numpy(encoder(batch)["sequence_output"])
        theirs = keras.ops.convert_to_numpy(backbone({"token_ids": batch["input_word_ids"],
                                                      "padding_mask": batch["input_mask"]}))
        again = keras.ops.convert_to_numpy(back(batch)["sequence_output"])
        mask = batch["input_mask"].astype(bool)
        assert float(np.abs(mine - theirs)[mask].max()) <= TOLERANCE, seq
        assert float(np.abs(mine - again).max()) <= TOLERANCE, seq
