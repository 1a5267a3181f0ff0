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


@pytest.mark.parametrize("kind", ["byte_bpe", "sentencepiece"])
def test_a_keras_file_carries_every_file_of_a_bpe_or_sentencepiece_contract(kind, request, tmp_path):
    """`BertEncoder.save_assets` writes `contract_files` (vocab.json + merges.txt; sentencepiece.bpe.model) and
    `load_assets` reads them back: the reloaded model tokenizes as the saved one (it saved vocab.txt only)."""
    import keras

    from keras_bert import BertConfig, BertEncoder
    from keras_bert.text.tokenizer_kinds import contract_files

    folder = request.getfixturevalue("trained_byte_bpe" if kind == "byte_bpe" else "trained_sentencepiece")[0]
    contract = TextConfig.from_dir(folder)
    assert contract.kind == kind
    tokenizer = contract.tokenizer()
    encoder = BertEncoder(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=8, num_layers=1, num_heads=2,
                                     intermediate_size=16, max_position_embeddings=16), text_config=contract)
    encoder.save(tmp_path / "encoder.keras")
    loaded = keras.saving.load_model(tmp_path / "encoder.keras").text_config
    assert loaded == contract.replace(vocab_file=loaded.vocab_file, merges_file=loaded.merges_file)
    assert [name for name, _ in contract_files(loaded)] == [name for name, _ in contract_files(contract)]
    text = ["To be, or not to be: that is the question."]
    assert loaded.tokenizer().tokenize(text).to_list() == tokenizer.tokenize(text).to_list()


def test_the_origin_of_a_released_checkpoint_is_saved_with_the_contract(tiny_vocab, tmp_path):
    origin = "hf://google-bert/bert-base-uncased@86b5e0934494bd15c9632b12f734a8a67f723594"
    config = TextConfig(tiny_vocab, origin=origin)
    assert config.tokenizer().text_config.origin == origin  # what every export saves beside its files
    saved = config.save(tmp_path)
    assert '"origin": "hf://google-bert/' in (tmp_path / "text_config.json").read_text()
    assert TextConfig.from_dir(tmp_path).origin == saved.origin == origin
    assert "origin" not in TextConfig(tiny_vocab).to_dict()  # a local checkpoint's contract: as before
