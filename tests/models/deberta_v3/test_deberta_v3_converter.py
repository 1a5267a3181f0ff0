"""DebertaV3Converter: every seeded transformers `DebertaV2*` folder (base, sequence, token, question answering,
multiple choice, masked LM) loads through its names as keras_bert's encoder / task model / pretrainer with equal
outputs, and saves back as the same class, which transformers loads to equal outputs (the parity table prints
with -s); every weight of each file is named both ways."""

import json
import os
import warnings

import keras
import numpy as np

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models import BertPretrainer, BertTaskModel
from keras_bert.models.deberta_v3 import DebertaV3Encoder
from keras_bert.models.deberta_v3.deberta_v3_converter import DEBERTA_V3_CONVERTER
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


def weight_names(folder):
    """The weight names of a folder's model.safetensors, without the base prefix (a base model's file may omit it)."""
    from safetensors import safe_open

    with safe_open(os.path.join(folder, "model.safetensors"), "np") as f:
        return {name.removeprefix("deberta.") for name in f.keys()}


def test_the_converter_names_deberta_weights_one_rule_a_layer():
    names = {"deberta.encoder.layer.3.attention.self.pos_key_proj.weight":
             ("bert/encoder/layer_3/attention/self/pos_key_proj/kernel", True),
             "deberta.encoder.rel_embeddings.weight": ("bert/encoder/rel_embeddings", False),
             "deberta.encoder.LayerNorm.bias": ("bert/encoder/LayerNorm/beta", False),
             "cls.predictions.transform.LayerNorm.weight": ("cls/predictions/transform/LayerNorm/gamma", False)}
    for hf_name, canonical in names.items():
        assert DEBERTA_V3_CONVERTER.canonical_name(hf_name, "ForMaskedLM") == canonical
        assert DEBERTA_V3_CONVERTER.hf_name(canonical[0], "ForMaskedLM") == (hf_name, canonical[1])
    pooler = "bert/pooler/dense/kernel"  # the ContextPooler: in the sequence and multiple-choice files only
    assert [DEBERTA_V3_CONVERTER.hf_name(pooler, suffix) for suffix in ("Model", "ForSequenceClassification",
                                                                        "ForMultipleChoice", "ForMaskedLM")] == [
        None, ("pooler.dense.weight", True), ("pooler.dense.weight", True), None]


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
            # The whole model is written: nothing dropped, no warning. (UserWarning only: PyTorch's numpy
            # bridge raises a DeprecationWarning of its own on the torch backend.)
            warnings.simplefilter("error", UserWarning)
            save_checkpoint(model, back, format="huggingface")
        written = json.loads(open(os.path.join(back, "config.json"), encoding="utf-8").read())
        assert (written["model_type"], written["architectures"]) == ("deberta-v2", [architecture])
        assert weight_names(back) == weight_names(deberta_folders[suffix]), suffix  # each weight named both ways
        save = max_difference(hf_outputs(hf_model(back, architecture), batch), mine, batch["input_mask"])
        table.append(f"{suffix}: load {load:.1e}, save {save:.1e}")
        assert max(load, save) <= TOLERANCE, table[-1]
    print("\nDeBERTa-v3 parity at length 64 (padded rows):\n" + "\n".join(table))
