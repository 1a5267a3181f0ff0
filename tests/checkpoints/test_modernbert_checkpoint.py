"""ModernBERT through the family seam: seeded transformers `ModernBertModel` / `ModernBertFor*` folders load as
keras_bert's encoder and task models with equal outputs, and save back as folders transformers loads with equal
outputs (right-padded rows; the parity table prints with -s)."""

import json
import os
import subprocess
import sys
import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.checkpoints.weight_map import find_encoder
from keras_bert.models import BertPretrainer, BertTaskModel
from keras_bert.models.families import FAMILIES, family_for_model_type, family_of
from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

from tests.models.modernbert.tiny_modernbert import padded_batch, save_seeded

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLERANCE = 1e-4
HEADS = ("Model", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice")
BATCH = padded_batch(24, (24, 13), seed=3)  # 24 > the +-8 window of TINY_HF's local layers


def batch_for(suffix):
    if suffix == "ForMultipleChoice":  # [examples, choices, seq]: the two rows as two choices of each example
        return {k: np.stack([v, v[::-1]]) for k, v in BATCH.items()}
    return BATCH


def reference(model, batch):
    with torch.no_grad():
        out = model(input_ids=torch.tensor(batch["input_word_ids"], dtype=torch.long),
                    attention_mask=torch.tensor(batch["input_mask"], dtype=torch.long))
    return {k: v.numpy() for k, v in out.items() if isinstance(v, torch.Tensor)}


def ours(model, suffix, batch):
    out = model(batch)
    if suffix == "Model":
        return {"last_hidden_state": keras.ops.convert_to_numpy(out["sequence_output"])}
    if isinstance(out, dict):
        return {k: keras.ops.convert_to_numpy(v) for k, v in out.items()}
    return {"logits": keras.ops.convert_to_numpy(out)}


def max_difference(theirs, mine, mask):
    """The largest difference over the outputs both have, on real (unpadded) tokens only."""
    worst = 0.0
    for name, value in mine.items():
        other = theirs[name]
        if value.ndim >= 2 and value.shape[:2] == mask.shape:
            value, other = value[mask.astype(bool)], other[mask.astype(bool)]
        worst = max(worst, float(np.abs(value - other).max()))
    return worst


@pytest.mark.parametrize("suffix", HEADS)
def test_modernbert_head_equals_transformers_both_ways(suffix, tmp_path):
    architecture = "ModernBert" + suffix
    options = {"num_labels": 3} if suffix in ("ForSequenceClassification", "ForTokenClassification") else {}
    save_seeded(str(tmp_path / "hf"), architecture, seed=HEADS.index(suffix), **options)
    model_class = getattr(transformers, architecture)
    batch = batch_for(suffix)
    expected = reference(model_class.from_pretrained(tmp_path / "hf", attn_implementation="eager").eval(), batch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no tokenizer files here: text_config None, with a warning
        loaded = load_checkpoint(tmp_path / "hf")
    assert isinstance(find_encoder(loaded), ModernBertEncoder)
    assert isinstance(loaded, ModernBertEncoder if suffix == "Model" else BertTaskModel)
    load_diff = max_difference(expected, ours(loaded, suffix, batch), batch["input_mask"])
    assert load_diff <= TOLERANCE

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the whole model is written: nothing dropped, no warning
        save_checkpoint(loaded, tmp_path / "back", format="huggingface")
    written = json.loads((tmp_path / "back" / "config.json").read_text())
    assert (written["model_type"], written["architectures"]) == ("modernbert", [architecture])
    back = model_class.from_pretrained(tmp_path / "back", attn_implementation="eager").eval()
    save_diff = max_difference(reference(back, batch), ours(loaded, suffix, batch), batch["input_mask"])
    assert save_diff <= TOLERANCE
    print(f"\nparity modernbert {suffix}: load {load_diff:.2e}, save {save_diff:.2e}")


def test_modernbert_is_one_family_record_with_its_pretraining_defaults():
    family = family_for_model_type("modernbert")
    assert (family.name, family.encoder_class, family.next_sentence, family.mask_rate) == (
        "modernbert", ModernBertEncoder, False, 0.3)
    assert family_of(ModernBertConfig(vocab_size=10, hidden_size=8, num_layers=1, num_heads=2)) is family
    assert FAMILIES["bert"].mask_rate == 0.15


def test_a_modernbert_task_model_keras_file_loads_in_a_fresh_process(tmp_path):
    save_seeded(str(tmp_path / "hf"), "ModernBertForTokenClassification", seed=9, num_labels=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_checkpoint(tmp_path / "hf")
    model.save(tmp_path / "model.keras")
    np.savez(tmp_path / "io.npz", expected=ours(model, "ForTokenClassification", BATCH)["logits"], **BATCH)
    script = ("import sys, numpy as np, keras, keras_bert, keras_bert.models\n"
              "model = keras.saving.load_model(sys.argv[1])\n"
              "io = np.load(sys.argv[2])\n"
              "out = model({k: io[k] for k in ('input_word_ids', 'input_mask', 'input_type_ids')})\n"
              "print(type(model.encoder).__name__, model.task, model.task_config['labels'],\n"
              "      float(np.abs(keras.ops.convert_to_numpy(out) - io['expected']).max()))\n")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "model.keras"), str(tmp_path / "io.npz")],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    name, task, labels, difference = done.stdout.strip().splitlines()[-1].rsplit(" ", 1)[0].split(" ", 2) + [
        done.stdout.strip().splitlines()[-1].rsplit(" ", 1)[1]]
    assert (name, task) == ("ModernBertEncoder", "token_classification") and "LABEL_2" in labels
    assert float(difference) == 0.0


def test_a_modernbert_masked_lm_folder_loads_as_a_pretrainer_both_ways(tmp_path):
    """The pretrainer of ModernBERT: masked LM only, its decoder tied to the token embeddings, plus its bias."""
    save_seeded(str(tmp_path / "hf"), "ModernBertForMaskedLM", seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_checkpoint(tmp_path / "hf", model="pretrainer")
    assert isinstance(model, BertPretrainer) and not model.next_sentence
    positions = np.broadcast_to(np.arange(24, dtype="int32"), (2, 24))
    mine = {"logits": keras.ops.convert_to_numpy(model(dict(BATCH, masked_lm_positions=positions))["mlm_logits"])}
    theirs = transformers.ModernBertForMaskedLM.from_pretrained(tmp_path / "hf", attn_implementation="eager")
    load_diff = max_difference(reference(theirs.eval(), BATCH), mine, BATCH["input_mask"])
    assert load_diff <= TOLERANCE
    save_checkpoint(model, tmp_path / "back", format="huggingface")
    back = transformers.ModernBertForMaskedLM.from_pretrained(tmp_path / "back", attn_implementation="eager")
    save_diff = max_difference(reference(back.eval(), BATCH), mine, BATCH["input_mask"])
    assert save_diff <= TOLERANCE
    rebuilt = BertPretrainer.from_config(model.get_config())  # the family's config class reads the dict back
    assert rebuilt.config == model.config and len(rebuilt.weights) == len(model.weights)
    print(f"\nparity modernbert ForMaskedLM: load {load_diff:.2e}, save {save_diff:.2e}")
