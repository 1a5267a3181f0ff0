"""A Unigram tokenizer.json (XLM-R as transformers 5 saves it, no sentencepiece.bpe.model) runs in the
graph as the SentencePiece model it was converted from: the same ids as that model, and as AutoTokenizer."""

import json
import shutil

import pytest

from keras_bert.text import SentencepieceTokenizer, TextConfig
from keras_bert.text.unigram_files import sentencepiece_from_tokenizer_json

# The hard lines where transformers' Rust Unigram and the sentencepiece library disagree, the same with the
# model file (tests/text/test_sentencepiece_tokenizer.py's KNOWN_DIFFERENT), and a 300-letter repeat (a tie).
KNOWN_DIFFERENT = (5, 8, 9, 10, 15, 21)
MORE = ["", "   ", "a  b\t\tc\n\nd", "Ünïcödé   ñ ﬁ ™ ①", "  lead and trail  ", "\x00\x07", "x" * 300]


@pytest.fixture(scope="module")
def json_only(trained_sentencepiece, tmp_path_factory):
    """What transformers 5 / sentence-transformers 6 save: tokenizer.json + tokenizer_config.json only."""
    folder = tmp_path_factory.mktemp("unigram_json")
    trained_sentencepiece[1].save_pretrained(folder)
    assert not (folder / "sentencepiece.bpe.model").exists()
    return folder


def test_ids_equal_the_model_file_and_autotokenizer(json_only, trained_sentencepiece, hard_cases,
                                                    shakespeare_lines, tmp_path):
    transformers = pytest.importorskip("transformers")
    texts = hard_cases + shakespeare_lines[:200] + MORE
    config = TextConfig.from_dir(json_only)
    assert config.kind == "sentencepiece"
    ids = config.tokenizer().tokenize(texts).to_list()
    original = SentencepieceTokenizer(trained_sentencepiece[0] / "sentencepiece.bpe.model")
    assert ids == original.tokenize(texts).to_list()
    expected = transformers.AutoTokenizer.from_pretrained(str(json_only))(texts, add_special_tokens=False)
    different = [i for i, (a, b) in enumerate(zip(ids, expected["input_ids"])) if a != b]
    assert different == [*KNOWN_DIFFERENT, len(texts) - 1]
    # Converted back (a Hugging Face folder with the SentencePiece model), transformers reads the same ids.
    config.save(tmp_path / "back", format="huggingface")
    again = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "back"))(texts, add_special_tokens=False)
    assert again["input_ids"] == expected["input_ids"]


def test_a_model_file_beside_it_is_used_only_if_it_is_the_same(json_only, trained_sentencepiece, tmp_path):
    shutil.copytree(json_only, tmp_path / "same")
    shutil.copy(trained_sentencepiece[0] / "sentencepiece.bpe.model", tmp_path / "same")
    assert TextConfig.from_dir(tmp_path / "same").vocab_file == str(tmp_path / "same" / "sentencepiece.bpe.model")
    shutil.copytree(json_only, tmp_path / "stale")
    (tmp_path / "stale" / "sentencepiece.bpe.model").write_bytes(b"stale")  # tokenizer.json wins, as in transformers
    assert TextConfig.from_dir(tmp_path / "stale").vocab_file == TextConfig.from_dir(json_only).vocab_file


@pytest.mark.parametrize("change, fragment", [
    (lambda t: t["model"].update(vocab=t["model"]["vocab"][1:]), "is not laid out as XLM-R's"),
    (lambda t: t.update(normalizer={"type": "Lowercase"}), "normalizer 'Lowercase' is not one SentencePiece runs"),
    (lambda t: t.update(pre_tokenizer={"type": "Whitespace"}), "pre-tokenizer ['Whitespace'] is not SentencePiece's"),
    (lambda t: t["added_tokens"].append({"id": 10 ** 6, "content": "<new>"}), "adds tokens ['<new>']"),
])
def test_what_sentencepiece_cannot_run_is_one_line(json_only, tmp_path, change, fragment):
    tokenizer = json.loads((json_only / "tokenizer.json").read_text(encoding="utf-8"))
    change(tokenizer)
    (tmp_path / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    with pytest.raises(ValueError, match="tokenizer.json") as error:
        sentencepiece_from_tokenizer_json(tmp_path / "tokenizer.json")
    assert fragment in str(error.value) and "\n" not in str(error.value)
