"""ModernBERT through the family seam: seeded transformers `ModernBertModel` / `ModernBertFor*` folders load as
keras_bert's encoder and task models with equal outputs, and save back as folders transformers loads with equal
outputs (right-padded rows; the parity table prints with -s)."""

import json
import os
import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models.model_operations import find_encoder
from keras_bert.models import BertPretrainer, BertTaskModel
from keras_bert.models.families import FAMILIES, family_for_model_type, family_of
from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

from tests.conftest import run_tool
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


def byte_bpe_folder(folder, lines):
    """A seeded ModernBertModel with the byte-level BPE ModernBERT's names ([CLS] A [SEP] B [SEP]) trained on `lines`."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.processors import TemplateProcessing

    bpe = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(lines, vocab_size=300, show_progress=False,
                            special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    bpe.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                            special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    save_seeded(str(folder), "ModernBertModel", seed=1, vocab_size=bpe.get_vocab_size(), pad_token_id=3,
                cls_token_id=1, bos_token_id=1, sep_token_id=2, eos_token_id=2, max_position_embeddings=64)
    bpe.save(str(folder / "tokenizer.json"))
    return folder


def test_a_modernbert_folder_fine_tunes_and_its_keras_file_loads_in_another_process(tmp_path):
    """tools/finetune.py on a ModernBERT folder with its byte-level BPE; its model.keras, loaded here (not the
    process that wrote it), is a ModernBERT task model that saves as a folder transformers reads to equal logits."""
    train = os.path.join(ROOT, "tests", "data", "fixtures", "sentiment.csv")
    with open(train, encoding="utf-8") as f:
        lines = [line.rsplit(",", 1)[0].strip('"') for line in f.read().splitlines()[1:]]
    folder = byte_bpe_folder(tmp_path / "hf", lines * 20)
    done = run_tool("finetune", "--checkpoint", str(folder), "--task", "classification", "--train_file", train,
                    "--epochs", "1", "--batch_size", "4", "--strategy", "default", "--jit_compile", "off",
                    "--seq_length", "32", "--output_dir", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr[-3000:]
    model = keras.saving.load_model(tmp_path / "run" / "model.keras")
    assert isinstance(model.encoder, ModernBertEncoder) and model.task == "classification"
    assert model.encoder.text_config.tokenizer().cls_id == 1
    ids = np.array([[1, 40, 77, 120, 2, 3, 3, 3], [1, 9, 250, 2, 3, 3, 3, 3]], "int32")
    batch = {"input_word_ids": ids, "input_mask": (ids != 3).astype("int32"), "input_type_ids": 0 * ids}
    save_checkpoint(model, tmp_path / "back", format="huggingface")
    back = transformers.ModernBertForSequenceClassification.from_pretrained(tmp_path / "back").eval()
    assert max_difference(reference(back, batch), ours(model, "Seq", batch), batch["input_mask"]) <= TOLERANCE


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


def test_a_modernbert_folder_whose_config_disagrees_with_its_weights_is_one_line(tmp_path):
    save_seeded(str(tmp_path), "ModernBertModel", seed=6)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(dict(config, intermediate_size=80)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"^Hugging Face checkpoint .*: variable 'layers.0.mlp.Wi.weight' has shape "
                                             r"\(192, 64\) but the config \(.*config.json: vocab_size=100, hidden_size=64, "
                                             r"intermediate_size=80, max_position_embeddings=8192\) expects \(160, 64\)"):
            load_checkpoint(tmp_path)
