"""TextConfig: the text contract saved and read in every checkpoint format."""

import warnings

import pytest

from keras_bert.text.text_config import TextConfig, find_text_config


@pytest.mark.parametrize("format", ["keras", "google", "huggingface"])
def test_round_trip_in_every_format(tiny_vocab, tmp_path, format):
    config = TextConfig(tiny_vocab, lower_case=False, split_special_tokens=True, max_seq_length=64)
    saved = config.save(tmp_path / format, format=format)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a saved contract is read, never guessed
        loaded = TextConfig.from_dir(tmp_path / format)
    assert loaded == saved == config.replace(vocab_file=str(tmp_path / format / "vocab.txt"))
    assert not loaded.guessed


def test_a_folder_with_only_vocab_txt_guesses_and_says_so(tmp_path, vocab_path, write_vocab_file):
    (tmp_path / "uncased").mkdir()
    (tmp_path / "uncased" / "vocab.txt").write_bytes(open(vocab_path, "rb").read())
    with pytest.warns(UserWarning, match="guessing lower_case=True"):
        assert TextConfig.from_dir(tmp_path / "uncased").guessed
    cased = write_vocab_file(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "The", "Cat", "sat"])
    with pytest.warns(UserWarning, match="guessing lower_case=False"):
        assert not TextConfig.from_dir(cased).lower_case
    (tmp_path / "empty").mkdir()
    assert find_text_config(tmp_path / "empty") is None and find_text_config(tmp_path / "no") is None


def test_a_flag_may_settle_a_guess_but_not_contradict_the_contract(tiny_vocab, tmp_path):
    stored = TextConfig(tiny_vocab, lower_case=True, source="text_config.json")
    assert stored.override(None) is stored and stored.override(True) is stored
    with pytest.raises(ValueError, match="--no_lower_case asks for lower_case=False"):
        stored.override(False, flag="--no_lower_case")
    guessed = stored.replace(guessed=True)
    assert guessed.override(False).lower_case is False
