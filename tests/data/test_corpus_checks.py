"""corpus_checks: the corpus refusals of `pretraining_dataset`, in plain Python (tools/pretrain.py makes them before
TensorFlow loads: tests/training/test_pretraining_flags.py; through the pipeline: tests/data/test_pretraining.py)."""

import pytest

from keras_bert.data.corpus_checks import check_corpus


def test_check_corpus_refuses_what_makes_no_example_and_returns_the_format(tmp_path):
    def text(name, content):
        (tmp_path / name).write_text(content, encoding="utf-8")
        return str(tmp_path / name)

    two = text("two.txt", "the king is dead .\nlong live the king .\n\na horse , a horse .\nmy kingdom .\n")
    assert check_corpus([two], "auto", next_sentence=True) == "bert"
    assert check_corpus([two], "plain", next_sentence=False) == "plain"
    with pytest.raises(ValueError, match=r"The input files \(1, input_format='plain'\) hold no text"):
        check_corpus([text("empty.txt", "\n \n")], "auto", next_sentence=False)
    with pytest.raises(ValueError, match="Input pipeline 1's files .* hold a single document"):
        check_corpus([text("one.txt", "to be .\nthat is the question .\n")], "bert", True, pipeline_id=1)
    with pytest.raises(ValueError, match="only one-sentence documents"):
        check_corpus([text("short.txt", "to be .\n\nor not .\n")], "bert", next_sentence=True)
