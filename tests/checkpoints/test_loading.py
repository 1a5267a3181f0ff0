"""load_checkpoint: parity with transformers on the real MiniLM-L6 weights, and clear errors."""

import json
import os
import shutil

import keras
import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from keras_bert.checkpoints import detect_format, load_checkpoint, save_checkpoint
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.models import BertEncoder, BertPretrainer

SENTENCES = ["The quick brown fox jumps over the lazy dog.", "Hello!",
             "BERT reads the whole sentence at once, left and right context together."]
PAIRS = [("How old are you?", "I am six years old and I live in a yellow submarine."),
         ("The cat sat on the mat.", "It was warm.")]


def test_minilm_matches_transformers_bert_model(minilm_dir):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    encoder = load_checkpoint(minilm_dir, model="encoder")  # the folder alone loads as its embedder
    assert isinstance(encoder, BertEncoder) and encoder.config.hidden_act == "gelu"
    assert encoder.text_config.vocab_file == os.path.join(minilm_dir, "vocab.txt")
    tokenizer = transformers.BertTokenizerFast.from_pretrained(minilm_dir)
    reference = transformers.BertModel.from_pretrained(minilm_dir).eval()
    batches = {"sentences": tokenizer(SENTENCES, padding=True, return_tensors="np"),
               "pairs": tokenizer([a for a, _ in PAIRS], [b for _, b in PAIRS], padding=True,
                                  return_tensors="np")}
    for kind, batch in batches.items():
        assert (batch["attention_mask"] == 0).any(), "each batch must contain padding"
        ours = encoder({"input_word_ids": batch["input_ids"].astype("int32"),
                        "input_mask": batch["attention_mask"].astype("int32"),
                        "input_type_ids": batch["token_type_ids"].astype("int32")}, training=False)
        with torch.no_grad():
            theirs = reference(**{k: torch.from_numpy(v) for k, v in batch.items()})
        real = batch["attention_mask"].astype(bool)
        sequence_diff = np.abs(keras.ops.convert_to_numpy(ours["sequence_output"])
                               - theirs.last_hidden_state.numpy())
        pooled_diff = np.abs(keras.ops.convert_to_numpy(ours["pooled_output"]) - theirs.pooler_output.numpy())
        print(f"MiniLM-L6 {kind}: max |sequence_output diff| = {sequence_diff.max():.2e} "
              f"(real tokens {sequence_diff[real].max():.2e}), "
              f"max |pooled_output diff| = {pooled_diff.max():.2e}")
        assert sequence_diff.max() <= 1e-4
        assert pooled_diff.max() <= 1e-4


def test_dtype_argument(hf_model_dir):
    encoder = load_checkpoint(hf_model_dir, dtype="mixed_bfloat16")
    assert encoder.layer_dtype == "mixed_bfloat16"
    ids = np.ones((2, 5), "int32")
    out = encoder({"input_word_ids": ids, "input_mask": ids, "input_type_ids": 0 * ids}, training=False)
    assert keras.backend.standardize_dtype(out["sequence_output"].dtype) == "bfloat16"
    full = model_weights(load_checkpoint(hf_model_dir))
    for name, value in model_weights(encoder).items():  # variables stay float32 under mixed precision
        np.testing.assert_array_equal(value, full[name], err_msg=name)


# ----------------------------------------------------------------------------- bad input


def copy_of(directory, tmp_path, name="copy"):
    target = tmp_path / name
    shutil.copytree(directory, target)
    return target


def test_unknown_model_kind(hf_model_dir):
    with pytest.raises(ValueError, match="model must be one of"):
        load_checkpoint(hf_model_dir, model="classifier")


def test_missing_path_and_unknown_format(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_checkpoint(tmp_path / "nowhere")
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(ValueError, match=r"not a BERT checkpoint in a known format.*notes.txt.*config.json"):
        load_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="Don't know how to read the file"):
        load_checkpoint(tmp_path / "notes.txt")


def test_hf_missing_config(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    os.remove(directory / "config.json")
    with pytest.raises(FileNotFoundError, match=r"has model.safetensors but no config.json"):
        load_checkpoint(directory)


def test_pickle_is_refused_with_conversion_snippet(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"not even a pickle")
    with pytest.raises(ValueError, match=r"(?s)never unpickles.*safetensors.torch.save_file"):
        load_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="never unpickles"):
        load_checkpoint(tmp_path / "pytorch_model.bin")


def test_google_missing_files(hf_model_dir, tmp_path):
    google = save_checkpoint(load_checkpoint(hf_model_dir), tmp_path / "google", format="google")
    os.remove(os.path.join(google, "bert_config.json"))
    with pytest.raises(FileNotFoundError, match=r"no bert_config.json; a Google BERT checkpoint directory must contain"):
        load_checkpoint(google)
    google = save_checkpoint(load_checkpoint(hf_model_dir), tmp_path / "google2", format="google")
    os.remove(os.path.join(google, "bert_model.ckpt.data-00000-of-00001"))
    with pytest.raises(FileNotFoundError, match=r"data file bert_model.ckpt.data-00000-of-00001 is missing"):
        load_checkpoint(google)


def test_shape_disagreeing_with_config_names_variable_and_shapes(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    config = json.loads((directory / "config.json").read_text())
    config["intermediate_size"] = 48
    (directory / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"variable 'encoder.layer.0.intermediate.dense.weight' has shape "
                                         r"\(32, 16\) but the config .*intermediate_size=48.* expects \(48, 16\)"):
        load_checkpoint(directory)


def test_vocab_lines_disagreeing_with_embedding_rows(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    lines = (directory / "vocab.txt").read_text().split("\n")
    (directory / "vocab.txt").write_text("\n".join(lines[:60]) + "\n")
    with pytest.raises(ValueError, match="vocab.txt has 60 lines but the checkpoint's word_embeddings has 64 rows"):
        load_checkpoint(directory)


def test_truncated_safetensors(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    data = (directory / "model.safetensors").read_bytes()
    (directory / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load_checkpoint(directory)


def test_truncated_google_checkpoint(hf_model_dir, tmp_path):
    for damaged in ("bert_model.ckpt.data-00000-of-00001", "bert_model.ckpt.index"):
        google = tmp_path / damaged
        save_checkpoint(load_checkpoint(hf_model_dir), google, format="google")
        data = (google / damaged).read_bytes()
        (google / damaged).write_bytes(data[: len(data) // 2])
        with pytest.raises(ValueError, match="corrupt or truncated"):
            load_checkpoint(google)


def test_missing_encoder_weights(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    tensors = load_file(directory / "model.safetensors")
    tensors = {k: v for k, v in tensors.items() if not k.startswith("encoder.layer.1.")}
    save_file(tensors, directory / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ValueError, match=r"lacks 16 encoder weight\(s\).*encoder.layer.1.*2 layers"):
        load_checkpoint(directory)


def test_not_a_bert_model(hf_model_dir, tmp_path):
    directory = copy_of(hf_model_dir, tmp_path)
    config = json.loads((directory / "config.json").read_text())
    config["model_type"] = "gpt2"  # RoBERTa, XLM-R and DeBERTa load now (tests/checkpoints/test_roberta_checkpoint.py)
    (directory / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="describes a 'gpt2' model; keras_bert reads model_type 'bert', "
                                         "'deberta-v2', 'distilbert', 'electra', 'modernbert', 'roberta', 'xlm-roberta'"):
        load_checkpoint(directory)


def test_detect_format_and_paths_to_files(hf_pretraining_dir, tmp_path):
    pretrainer = load_checkpoint(os.path.join(hf_pretraining_dir, "model.safetensors"), model="pretrainer")
    assert isinstance(pretrainer, BertPretrainer)
    save_checkpoint(pretrainer, tmp_path / "g", format="google")
    save_checkpoint(pretrainer, tmp_path / "k", format="keras")
    assert detect_format(hf_pretraining_dir) == "huggingface"
    assert detect_format(tmp_path / "g") == "google"
    assert detect_format(tmp_path / "g" / "bert_model.ckpt") == "google"
    assert detect_format(tmp_path / "k") == "keras"
    encoder = load_checkpoint(tmp_path / "g" / "bert_model.ckpt")  # Google's usual init_checkpoint form
    np.testing.assert_array_equal(encoder.embeddings.embedding_table.numpy(),
                                  pretrainer.encoder.embeddings.embedding_table.numpy())
