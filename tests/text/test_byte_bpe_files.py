"""byte_bpe_files: vocab.json + merges.txt, and the BPE model inside a tokenizer.json."""

import json

import pytest

from keras_bert.text.byte_bpe_files import (bpe_from_tokenizer_json, read_merges, read_vocab_json,
                                            special_ids)


def test_tokenizer_json_gives_the_same_vocab_and_merges(tmp_path):
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, "a": 5, "b": 6, "ab": 7}
    (tmp_path / "tokenizer.json").write_text(json.dumps(
        {"model": {"type": "BPE", "vocab": vocab, "merges": [["a", "b"]]}}))
    vocab_file, merges_file = bpe_from_tokenizer_json(str(tmp_path / "tokenizer.json"))
    assert read_vocab_json(vocab_file) == sorted(vocab, key=vocab.get)
    assert read_merges(merges_file) == ["a b"]
    assert special_ids(read_vocab_json(vocab_file), "x") == {"cls": 0, "pad": 1, "sep": 2, "unk": 3,
                                                             "mask": 4}
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "WordPiece"}}))
    assert bpe_from_tokenizer_json(str(tmp_path / "tokenizer.json")) is None


def test_a_file_that_is_not_a_bpe_vocabulary_is_named(tmp_path):
    (tmp_path / "vocab.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="vocab.json is not a BPE vocabulary"):
        read_vocab_json(str(tmp_path / "vocab.json"))
