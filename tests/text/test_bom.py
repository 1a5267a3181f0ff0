"""Files written by common tools (Excel, Notepad) start with a UTF-8 byte-order mark: they read
exactly as the same file without it (vocab.txt, CSV, TSV, JSONL, CoNLL)."""

import json

import pytest

import keras_bert
from keras_bert.data.classification import read_text_rows
from keras_bert.data.token_classification import read_conll
from keras_bert.text.vocab import SPECIAL_TOKENS, load_vocab

BOM = "\ufeff"
VOCAB = list(SPECIAL_TOKENS) + ["the", "film", "was", "fine", "##s", "a"]


def _write(path, text, bom):
    path.write_text((BOM if bom else "") + text, encoding="utf-8")
    return str(path)


def test_a_vocab_with_a_bom_reads_as_without(tmp_path):
    plain = _write(tmp_path / "plain.txt", "\n".join(VOCAB) + "\n", bom=False)
    marked = _write(tmp_path / "bom.txt", "\n".join(VOCAB) + "\n", bom=True)
    assert load_vocab(marked) == load_vocab(plain) == VOCAB
    plain_ids = keras_bert.Tokenizer(plain).tokenize(["the films was fine"]).to_list()
    marked_tokenizer = keras_bert.Tokenizer(marked)
    assert marked_tokenizer.tokenize(["the films was fine"]).to_list() == plain_ids
    assert marked_tokenizer.pad_id == 0 and marked_tokenizer.token_to_id("[PAD]") == 0


@pytest.mark.parametrize("name, text", [
    ("train.csv", "sentence,label\na fine film,1\nthe film,0\n"),
    ("train.tsv", "sentence\tlabel\na fine film\t1\nthe film\t0\n"),
    ("train.jsonl", "\n".join(json.dumps(row) for row in (
        {"sentence": "a fine film", "label": 1}, {"sentence": "the film", "label": 0})) + "\n"),
])
def test_a_table_with_a_bom_finds_its_first_column(tmp_path, name, text):
    (tmp_path / "plain").mkdir()
    (tmp_path / "bom").mkdir()
    plain = read_text_rows(_write(tmp_path / "plain" / name, text, bom=False), "sentence", None, "label")
    marked = read_text_rows(_write(tmp_path / "bom" / name, text, bom=True), "sentence", None, "label")
    assert marked == plain
    assert marked[0] == ["a fine film", "the film"]


def test_a_conll_file_with_a_bom_reads_as_without(tmp_path):
    text = "EU B-ORG\nrejects O\n\nPeter B-PER\n"
    plain = read_conll(_write(tmp_path / "plain.conll", text, bom=False))
    marked = read_conll(_write(tmp_path / "bom.conll", text, bom=True))
    assert marked == plain
    assert marked[0][0][0] == "EU"
