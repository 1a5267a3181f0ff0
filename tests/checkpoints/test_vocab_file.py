"""vocab.txt helpers: token count, the check against the embedding rows, the copy next to a checkpoint."""

import pytest

from keras_bert.checkpoints.vocab_file import check_vocab, copy_vocab, count_vocab_lines


def test_count_vocab_lines_ignores_only_the_final_newline(tmp_path):
    with_newline, without = tmp_path / "a.txt", tmp_path / "b.txt"
    # U+2028 is a line break to str.splitlines() but one token to BERT's vocab reader.
    with_newline.write_text("[PAD]\n[UNK]\nx\u2028y\n", encoding="utf-8")
    without.write_text("[PAD]\n[UNK]\nx\u2028y", encoding="utf-8")
    assert count_vocab_lines(with_newline) == count_vocab_lines(without) == 3


def test_check_vocab_names_both_counts_and_the_file(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n", encoding="utf-8")
    check_vocab(vocab, 2, "source")
    with pytest.raises(ValueError, match=r"vocab.txt has 2 lines but the checkpoint's word_embeddings has 3 rows "
                                         r"\(.*vocab.txt, my checkpoint\)"):
        check_vocab(vocab, 3, "my checkpoint")


def test_copy_vocab_copies_once(tmp_path):
    source = tmp_path / "src" / "vocab.txt"
    source.parent.mkdir()
    source.write_text("a\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    copied = copy_vocab(str(source), str(tmp_path / "out"))
    assert open(copied, encoding="utf-8").read() == "a\n"
    assert copy_vocab(copied, str(tmp_path / "out")) == copied  # already there: no copy onto itself
