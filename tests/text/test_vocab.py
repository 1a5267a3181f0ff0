import os
import subprocess
import sys

import pytest

from keras_bert.text import SPECIAL_TOKENS, Tokenizer, build_vocab, load_vocab, special_token_ids, write_vocab

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_load_vocab_line_numbers_are_ids(tmp_path, vocab_path):
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"[PAD]\r\n[UNK]\r\n##a\r\nb")  # CRLF endings, no final newline
    assert load_vocab(str(path)) == ["[PAD]", "[UNK]", "##a", "b"]
    vocab = load_vocab(vocab_path)
    assert len(vocab) == 30522 and vocab[101] == "[CLS]" and vocab[7592] == "hello"
    assert special_token_ids(vocab) == {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}


def test_write_vocab_round_trip_and_rejects_bad_tokens(tmp_path):
    tokens = list(SPECIAL_TOKENS) + ["thé", "##s", " "]
    path = str(tmp_path / "sub" / "vocab.txt")
    write_vocab(tokens, path)
    assert load_vocab(path) == tokens
    with pytest.raises(ValueError, match="no newline"):
        write_vocab(["a\nb"], path)


def test_special_token_ids_names_all_missing():
    with pytest.raises(ValueError, match=r"lacks the special token\(s\) \[CLS\], \[MASK\]"):
        special_token_ids(["[PAD]", "[UNK]", "[SEP]", "x"], "my vocab")


def test_build_vocab_from_shakespeare(shakespeare_files, tmp_path):
    train, held_out = shakespeare_files[:2], shakespeare_files[-1]
    output = str(tmp_path / "vocab.txt")
    vocab = build_vocab(train, vocab_size=2000, output=output, learn_params={"lower_thresh": 2})
    assert vocab[:5] == list(SPECIAL_TOKENS) and load_vocab(output) == vocab
    assert 1800 <= len(vocab) <= 2000 and len(set(vocab)) == len(vocab)
    assert all(t == t.lower() for t in vocab[5:])  # uncased
    tokenizer = Tokenizer(output)
    with open(held_out, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()][500:600]  # a play it never saw
    ids = tokenizer.tokenize(lines).flat_values.numpy()
    assert len(ids) > 500 and (ids == tokenizer.unk_id).mean() < 0.01
    assert tokenizer.tokenize("the king").numpy().tolist() == [vocab.index("the"), vocab.index("king")]


def test_build_vocab_errors(tmp_path, shakespeare_files):
    with pytest.raises(ValueError, match="does not exist"):
        build_vocab([str(tmp_path / "missing.txt")], 100)
    with pytest.raises(ValueError, match="leaves no room"):
        build_vocab(shakespeare_files[:1], 5)
    with pytest.raises(ValueError, match=r"must include \[MASK\]"):
        build_vocab(shakespeare_files[:1], 100, reserved_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(ValueError, match="no words"):
        build_vocab([str(empty)], 100)


@pytest.mark.slow
def test_build_vocab_cli(shakespeare_files, tmp_path):
    tool = os.path.join(REPO, "tools", "build_vocab.py")
    help_text = subprocess.run([sys.executable, tool, "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "--vocab_size" in help_text.stdout and "--output" in help_text.stdout
    output = str(tmp_path / "cased" / "vocab.txt")
    result = subprocess.run(
        [sys.executable, tool, shakespeare_files[0], "--vocab_size", "400", "--no_lower_case",
         "--max_lines", "1500", "--min_count", "2", "--output", output],
        capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert result.returncode == 0, result.stderr[-2000:]
    vocab = load_vocab(output)
    assert f"Wrote {len(vocab)} tokens" in result.stdout and vocab[:5] == list(SPECIAL_TOKENS)
    assert any(t != t.lower() for t in vocab)  # cased
    bad = subprocess.run([sys.executable, tool, str(tmp_path / "nope.txt"), "--output", output],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "does not exist" in bad.stderr
