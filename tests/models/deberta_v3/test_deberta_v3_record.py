"""DeBERTa-v3 through its family record: every seeded transformers `DebertaV2*` folder (base, sequence, token,
question answering, multiple choice, masked LM) loads as keras_bert's encoder / task model / pretrainer with
equal outputs, and saves back as the same class, which transformers loads to equal outputs (the parity
table prints with -s)."""

import json
import os
import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models import BertPretrainer, BertTaskModel
from keras_bert.models.deberta_v3 import DebertaV3Config, DebertaV3Encoder
from keras_bert.models.families import family_for_model_type, family_of
from tests.models.deberta_v3.conftest import SUFFIXES
from tests.models.deberta_v3.tiny_deberta import hf_model, hf_outputs, padded_batch

TOLERANCE = 1e-4
BATCH = padded_batch(64, (64, 23), seed=3)


def ours(model, suffix, batch):
    """keras_bert's outputs under transformers' names."""
    if suffix == "ForMaskedLM":
        positions = np.broadcast_to(np.arange(batch["input_word_ids"].shape[1], dtype="int32"),
                                    batch["input_word_ids"].shape)
        return {"logits": model(dict(batch, masked_lm_positions=positions))["mlm_logits"]}
    out = model(batch)
    if suffix == "Model":
        return {"last_hidden_state": out["sequence_output"]}
    return dict(out) if isinstance(out, dict) else {"logits": out}


def max_difference(theirs, mine, mask):
    """The largest difference over the outputs keras_bert gives, on real (unpadded) tokens."""
    worst = 0.0
    for name, value in mine.items():
        value, other = keras.ops.convert_to_numpy(value), theirs[name]
        assert np.abs(other).max() > 1e-2, name  # the seeded weights show in the outputs
        if value.ndim >= 2 and value.shape[:2] == mask.shape:
            value, other = value[mask.astype(bool)], other[mask.astype(bool)]
        worst = max(worst, float(np.abs(value - other).max()))
    return worst


def test_every_deberta_head_equals_transformers_both_ways(deberta_folders, tmp_path):
    table = []
    for suffix in SUFFIXES:
        architecture = "DebertaV2" + suffix
        batch = {k: np.stack([v, v[::-1]]) for k, v in BATCH.items()} if suffix == "ForMultipleChoice" else BATCH
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no tokenizer files here; DebertaV2Model has no pooler
            model = load_checkpoint(deberta_folders[suffix], model="pretrainer" if suffix == "ForMaskedLM" else None)
        expected = {"Model": DebertaV3Encoder, "ForMaskedLM": BertPretrainer}.get(suffix, BertTaskModel)
        assert isinstance(model, expected), suffix
        mine = ours(model, suffix, batch)
        load = max_difference(hf_outputs(hf_model(deberta_folders[suffix], architecture), batch), mine,
                              batch["input_mask"])
        back = str(tmp_path / suffix)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the whole model is written: nothing dropped, no warning
            save_checkpoint(model, back, format="huggingface")
        written = json.loads(open(os.path.join(back, "config.json"), encoding="utf-8").read())
        assert (written["model_type"], written["architectures"]) == ("deberta-v2", [architecture])
        save = max_difference(hf_outputs(hf_model(back, architecture), batch), mine, batch["input_mask"])
        table.append(f"{suffix}: load {load:.1e}, save {save:.1e}")
        assert max(load, save) <= TOLERANCE, table[-1]
    print("\nDeBERTa-v3 parity at length 64 (padded rows):\n" + "\n".join(table))


def test_deberta_is_one_family_record():
    family = family_for_model_type("deberta-v2")
    assert (family.name, family.encoder_class, family.next_sentence, family.converter.architecture("ForMaskedLM")) == (
        "deberta_v3", DebertaV3Encoder, False, "DebertaV2ForMaskedLM")
    assert family_of(DebertaV3Config(vocab_size=10, hidden_size=8, num_layers=1, num_heads=2)) is family
    with pytest.raises(ValueError, match="keras_bert reads model_type .*'deberta-v2'"):
        family_for_model_type("deberta")


def test_keras_hub_presets_both_ways(tmp_path, shakespeare_files):
    """save_checkpoint(format="keras_hub") writes a DebertaV3Backbone + DebertaV3Tokenizer preset that keras-hub
    loads to our sequence_output on real tokens (its padded rows differ: it does not zero them) and our ids;
    load_checkpoint reads the preset back to the same outputs and an "spm" text contract."""
    keras_hub = pytest.importorskip("keras_hub")
    from keras_bert.text.text_config import TextConfig
    from tests.models.deberta_v3.tiny_deberta import save_seeded, save_tokenizer

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
    for seq in (8, 512):
        batch = padded_batch(seq, (seq, seq // 2 + 1), seed=seq)
        mine = keras.ops.convert_to_numpy(encoder(batch)["sequence_output"])
        theirs = keras.ops.convert_to_numpy(backbone({"token_ids": batch["input_word_ids"],
                                                      "padding_mask": batch["input_mask"]}))
        again = keras.ops.convert_to_numpy(back(batch)["sequence_output"])
        mask = batch["input_mask"].astype(bool)
        assert float(np.abs(mine - theirs)[mask].max()) <= TOLERANCE, seq
        assert float(np.abs(mine - again).max()) <= TOLERANCE, seq
