"""Reading corpora: the bert / plain formats, odd bytes and line ends, format detection."""

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.documents import (count_documents, detect_input_format, resolve_files,
                                       split_documents, tokenize_documents)


def _lists(ragged):
    return [[s.decode("utf-8", "replace") for s in row] for row in ragged.to_list()]


def test_bert_format_sentences_and_documents():
    text = "First one.\nSecond one.\n\nOther doc.\r\n  \r\nThird doc, line 1.\rline 2.\n\n\n\n"
    assert _lists(split_documents(tf.constant(text), "bert")) == [
        ["First one.", "Second one."], ["Other doc."], ["Third doc, line 1.", "line 2."]]


def test_plain_format_paragraphs():
    text = "\n\n  Para one\nstill one.\n \t\nPara two.\n\n\n\nPara\r\nthree.  \n"
    assert _lists(split_documents(tf.constant(text), "plain")) == [
        ["Para one\nstill one.", "Para two.", "Para\nthree."]]


@pytest.mark.parametrize("text", ["", "\n\n \n\t\n", "   "])
def test_empty_text_has_no_documents(text):
    for input_format in ("bert", "plain"):
        assert split_documents(tf.constant(text), input_format).flat_values.shape[0] == 0


def test_invalid_utf8_is_replaced_not_fatal(minilm_dir):
    from keras_bert.text.tokenizer import Tokenizer

    tokenizer = Tokenizer(f"{minilm_dir}/vocab.txt")
    text = b"Good \xff\xfemorrow\n\n\xc3(\x80\x80\n\nsweet \xe2\x82 prince\n"
    pieces = tokenize_documents(tf.constant(text), tokenizer, "plain")  # [d, (s), (p)]
    sentences = [tokenizer.detokenize(tf.constant(s)).numpy().decode() for s in pieces[0].to_list()]
    assert sentences == ["good morrow", "(", "sweet prince"]  # bad bytes dropped as U+FFFD


def test_tokenize_drops_sentences_and_documents_without_pieces(minilm_dir):
    from keras_bert.text.tokenizer import Tokenizer

    tokenizer = Tokenizer(f"{minilm_dir}/vocab.txt")
    text = "Hello there.\n\x07\x07\nBye.\n\n\x07\n\u200b\n\nLast."
    pieces = tokenize_documents(tf.constant(text), tokenizer, "bert")
    assert pieces.shape[0] == 2  # the middle document is only control / zero-width characters
    assert [len(d) for d in pieces.to_list()] == [2, 1]


def test_detect_input_format(shakespeare_files, tmp_path):
    assert detect_input_format(shakespeare_files[:3]) == "plain"
    bert = tmp_path / "wiki.txt"
    bert.write_text("The cat sat on the mat.\nIt was happy!\n\nParis is in France.\n"
                    "It has a tower, built in 1889.\nIs it tall?\n", encoding="utf-8")
    assert detect_input_format([str(bert)]) == "bert"


def test_count_documents(tmp_path):
    bert = tmp_path / "a.txt"
    bert.write_text("One.\nTwo.\n\n\nThree.\n", encoding="utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_text(" \n\n", encoding="utf-8")
    assert count_documents([str(bert)], "bert", limit=10) == 2
    assert count_documents([str(bert)], "plain", limit=10) == 1
    assert count_documents([str(empty), str(bert)], "plain", limit=10) == 1
    invisible = tmp_path / "invisible.txt"
    invisible.write_text("\x07\n\u200b\n\n\ufeff", encoding="utf-8")
    assert count_documents([str(invisible)], "bert") == 0
    assert count_documents([str(bert)] * 5, "bert", limit=3) == 4  # stops once the limit is reached


def test_resolve_files(tmp_path):
    for name in ("b.txt", "a.txt"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert resolve_files(str(tmp_path / "*.txt")) == [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    with pytest.raises(ValueError, match="does not exist"):
        resolve_files([str(tmp_path / "missing.txt")])
    with pytest.raises(ValueError, match="is a directory"):
        resolve_files(str(tmp_path))
    with pytest.raises(ValueError, match="No input files"):
        resolve_files([])
    assert np.all([f.endswith(".txt") for f in resolve_files([tmp_path / "a.txt"])])
