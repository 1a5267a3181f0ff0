"""keras-hub presets: written by save_checkpoint, loaded by keras-hub itself, read back by load_checkpoint."""

import json
import os

import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints import detect_format, load_checkpoint, save_checkpoint

from .conftest import write_vocab

keras_hub = pytest.importorskip("keras_hub")

SENTENCES = ["The quick brown fox jumps over the lazy dog.", "Héllo, Wörld!", "a"]


def _tiny_encoder(**changes):
    config = keras_bert.BertConfig(vocab_size=64, hidden_size=16, num_layers=2, num_heads=2,
                                   intermediate_size=32, max_position_embeddings=32,
                                   hidden_act="gelu_tanh").replace(**changes)
    return keras_bert.BertEncoder(config)


def _inputs(tokenizer, texts):
    ids = tokenizer.tokenize(texts).to_tensor().numpy()
    mask = (ids != 0).astype("int32")
    return ids, mask


def test_minilm_preset_is_what_keras_hub_makes_of_the_hf_folder(minilm_dir, tmp_path):
    encoder = load_checkpoint(minilm_dir, model="encoder")  # its text contract: HF's tokenizer_config.json
    tokenizer = encoder.text_config.tokenizer()
    with pytest.warns(UserWarning, match=r"tanh approximation.*max \|sequence_output diff\| = "):
        save_checkpoint(encoder, tmp_path, format="keras_hub")
    assert {"config.json", "model.weights.h5", "tokenizer.json", "metadata.json"} <= set(os.listdir(tmp_path))
    # Independent reference: keras-hub's own converter reading the Hugging Face folder.
    reference = keras_hub.models.BertBackbone.from_preset(minilm_dir)
    ours = keras_hub.models.BertBackbone.from_preset(str(tmp_path))
    for a, b in zip(reference.get_weights(), ours.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    hub_tokenizer = keras_hub.models.BertTokenizer.from_preset(str(tmp_path))
    assert list(hub_tokenizer(SENTENCES)) == tokenizer.tokenize(SENTENCES).to_list()

    reloaded = load_checkpoint(tmp_path)
    assert detect_format(tmp_path) == "keras_hub"
    assert reloaded.config.hidden_act == "gelu_tanh" and reloaded.text_config == encoder.text_config.replace(
        vocab_file=str(tmp_path / "assets" / "tokenizer" / "vocabulary.txt"), max_seq_length=None)
    ids, mask = _inputs(tokenizer, SENTENCES)
    got = reloaded({"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)})
    want = reference({"token_ids": ids, "padding_mask": mask, "segment_ids": np.zeros_like(ids)})
    real = mask[..., None].astype(bool)  # keras-hub's padded positions are not defined to match
    seq = np.abs(np.asarray(got["sequence_output"]) - np.asarray(want["sequence_output"]))
    assert np.max(np.where(real, seq, 0)) < 1e-5
    np.testing.assert_allclose(got["pooled_output"], want["pooled_output"], atol=1e-5)


def test_cased_contract_round_trips(tmp_path):
    contract = keras_bert.TextConfig(write_vocab(tmp_path), lower_case=False, split_special_tokens=True)
    encoder = _tiny_encoder()
    save_checkpoint(encoder, tmp_path / "preset", format="keras_hub", text_config=contract)
    with open(tmp_path / "preset" / "tokenizer.json") as f:
        assert json.load(f)["config"]["lowercase"] is False
    hub_tokenizer = keras_hub.models.BertTokenizer.from_preset(str(tmp_path / "preset"))
    assert hub_tokenizer.lowercase is False and hub_tokenizer.special_tokens_in_strings is False
    reloaded = load_checkpoint(tmp_path / "preset")
    assert reloaded.text_config.lower_case is False and reloaded.text_config.split_special_tokens
    for a, b in zip(encoder.get_weights(), reloaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    # A second save from the loaded model keeps the casing without being told again.
    save_checkpoint(reloaded, tmp_path / "again", format="keras_hub")
    assert load_checkpoint(tmp_path / "again").text_config.lower_case is False


def test_pretrainer_heads_are_dropped_with_a_warning(tmp_path):
    pretrainer = keras_bert.BertPretrainer(_tiny_encoder().config)
    with pytest.warns(UserWarning, match=r"mlm_head.*not part of a keras_hub"):
        save_checkpoint(pretrainer, tmp_path, format="keras_hub")
    assert not os.path.exists(tmp_path / "tokenizer.json")  # no vocab, no tokenizer
    assert load_checkpoint(tmp_path).text_config is None


@pytest.mark.parametrize("changes, error", [
    (dict(hidden_act="relu"), r"hidden_act='relu'.*tanh GELU.*'huggingface'"),
])
def test_models_keras_hub_cannot_hold_are_refused(tmp_path, changes, error):
    with pytest.raises(ValueError, match=error):
        save_checkpoint(_tiny_encoder(**changes), tmp_path, format="keras_hub")


def test_missing_casing_is_an_error_naming_the_fix(tmp_path):
    encoder = _tiny_encoder()
    with pytest.raises(ValueError, match=r"needs the text contract \(casing\): pass text_config="):
        save_checkpoint(encoder, tmp_path, format="keras_hub", vocab_file=write_vocab(tmp_path))


def test_a_preset_of_another_model_is_refused(tmp_path):
    save_checkpoint(_tiny_encoder(), tmp_path, format="keras_hub")
    with open(tmp_path / "config.json") as f:
        config = json.load(f)
    config["registered_name"] = "keras_hub>GPT2Backbone"
    with open(tmp_path / "config.json", "w") as f:
        json.dump(config, f)
    with pytest.raises(ValueError, match=r"keras_hub>GPT2Backbone.*BertBackbone only"):
        load_checkpoint(tmp_path)
