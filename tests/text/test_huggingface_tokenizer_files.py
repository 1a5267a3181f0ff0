"""The text contract in Hugging Face's tokenizer files, checked against transformers' own tokenizer."""

import json
import os
import warnings

import pytest

from keras_bert.text.text_config import TextConfig
from tests.text.conftest import HARD_CASES
from tests.text.test_tokenizer import SPECIAL_LINES

CASED_LINES = ["Google BertConfig Serving", "Héllo WÖRLD, naïve Café!"] + SPECIAL_LINES + HARD_CASES


@pytest.mark.parametrize("lower_case", [False, True])
def test_huggingface_folder_gives_transformers_the_same_ids(vocab_path, tmp_path, lower_case):
    """save(format="huggingface") -> AutoTokenizer.from_pretrained(folder) -> the ids we produce."""
    transformers = pytest.importorskip("transformers")
    saved = TextConfig(vocab_path, lower_case=lower_case).save(tmp_path, format="huggingface")
    hf = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    ours = saved.tokenizer().tokenize(CASED_LINES).to_list()
    assert ours == hf(CASED_LINES, add_special_tokens=False)["input_ids"]
    pieces = hf.convert_ids_to_tokens(ours[0])
    assert (pieces[0] == "google") == lower_case  # cased: "Google" is not in this uncased vocab
    assert TextConfig.from_dir(tmp_path).lower_case == lower_case


def test_the_real_minilm_folder_is_read_from_its_tokenizer_config(minilm_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config = TextConfig.from_dir(minilm_dir)
    assert config.lower_case and not config.split_special_tokens and config.max_seq_length == 512
    assert config.source.endswith("tokenizer_config.json")


def test_a_transformers_5_folder_without_vocab_txt_is_read_from_tokenizer_json(minilm_dir, tmp_path):
    """transformers 5 saves a BERT tokenizer as tokenizer.json + tokenizer_config.json only: the
    vocabulary comes from tokenizer.json's WordPiece model, giving transformers' own ids."""
    transformers = pytest.importorskip("transformers")
    hf = transformers.AutoTokenizer.from_pretrained(minilm_dir)
    hf.save_pretrained(tmp_path)
    assert not (tmp_path / "vocab.txt").exists()
    config = TextConfig.from_dir(tmp_path)
    assert config.lower_case and config.max_seq_length == 512
    ours = config.tokenizer().tokenize(CASED_LINES).to_list()
    assert ours == hf(CASED_LINES, add_special_tokens=False)["input_ids"]


def test_hf_tokenizer_json_alone_is_read(vocab_path, tmp_path):
    TextConfig(vocab_path, lower_case=False).save(tmp_path, format="huggingface")
    os.remove(tmp_path / "tokenizer_config.json")
    assert TextConfig.from_dir(tmp_path).lower_case is False
    with open(tmp_path / "tokenizer.json", encoding="utf-8") as f:
        assert json.load(f)["normalizer"]["lowercase"] is False
