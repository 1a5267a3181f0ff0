"""build_vocab refuses a vocab that cannot cover its corpus (one line naming the files and the reason);
tools/build_vocab.py exits 2 and writes nothing."""

import os

import pytest

from keras_bert.text import SPECIAL_TOKENS, build_vocab
from keras_bert.text.vocab import check_coverage
from tests.conftest import run_tool


def _corpus(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_one_repeated_character_is_refused(tmp_path):
    corpus = _corpus(tmp_path, "aaa.txt", ["a" * 1000] * 50)
    output = tmp_path / "vocab.txt"
    with pytest.raises(ValueError) as error:
        build_vocab([corpus], 100, output=str(output))
    message = str(error.value)
    assert "\n" not in message and corpus in message
    assert "100.0% of the corpus's 50 words into [UNK]" in message
    assert "only the reserved tokens" in message and "only 1 distinct character, 'a'" in message
    assert "longer than 50 characters" in message
    assert not output.exists()


def test_characters_the_learner_dropped_are_named(tmp_path):
    lines = ["the quick brown fox jumps over the lazy dog"] * 30 + ["zebra quiz"] * 3
    corpus = _corpus(tmp_path, "few.txt", lines)
    with pytest.raises(ValueError, match=r"it lacks \d+ of the corpus's \d+ distinct characters, e\.g\. "
                                         r"'.*' \(the learner keeps the 5 most frequent"):
        build_vocab([corpus], 100, learn_params={"max_unique_chars": 5, "lower_thresh": 2})


def test_a_small_but_covering_vocab_is_kept(tmp_path):
    corpus = _corpus(tmp_path, "x.txt", ["x"] * 3 + ["abc abd"] * 3)
    vocab = build_vocab([corpus], 100)
    assert vocab[:5] == list(SPECIAL_TOKENS) and {"x", "a", "##b", "##c", "##d"} <= set(vocab)


def test_coverage_counts_word_occurrences_and_longer_pieces():
    vocab = list(SPECIAL_TOKENS) + ["ab", "##cd", "a", "##b"]
    # 'abcd' needs no single '##c' / '##d': the longer piece covers it.
    check_coverage(vocab, [("abcd", 10), ("ab", 5)], SPECIAL_TOKENS, ["c.txt"])
    check_coverage(vocab, [("abcd", 1000), ("az", 1)], SPECIAL_TOKENS, ["c.txt"])  # 0.1% [UNK]: kept
    with pytest.raises(ValueError, match=r"c\.txt would turn 50\.0% .* lacks 1 of the corpus's 5 distinct "
                                         r"characters, e\.g\. 'z'"):
        check_coverage(vocab, [("abcd", 10), ("az", 10)], SPECIAL_TOKENS, ["c.txt"])
    with pytest.raises(ValueError, match=r"longer than 100 characters, which the tokenizer maps to \[UNK\]"):
        check_coverage(vocab, [("a" * 101, 10), ("ab", 10)], SPECIAL_TOKENS, ["c.txt"])


def test_the_tool_exits_2_with_one_line(tmp_path):
    corpus = _corpus(tmp_path, "aaa.txt", ["a" * 200] * 20)
    output = tmp_path / "vocab.txt"
    result = run_tool("build_vocab", corpus, "--vocab_size", "100", "--output", str(output))
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("build_vocab.py: error: build_vocab: the vocabulary learned")
    assert "only 1 distinct character" in lines[0] and not os.path.exists(output)
