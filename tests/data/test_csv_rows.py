"""data/csv_rows.py: a CSV/TSV field over csv's 131,072-character limit reads whole; the limit is restored."""

import json
import random

import pytest

WORDS = "the king is dead long live horse kingdom for a my good bad day night".split()


def _sentences(n, seed=0, words=6):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(words)) for _ in range(n)]


@pytest.mark.parametrize("extension", [".csv", ".tsv"])
def test_a_long_document_in_csv_reads_like_jsonl(tmp_path, extension):
    import csv as csv_module

    from keras_bert.data.classification import read_text_rows

    document = " ".join(_sentences(1, words=30000))
    assert len(document) > 131072
    path = tmp_path / ("long" + extension)
    delimiter = "\t" if extension == ".tsv" else ","
    path.write_text(f"sentence{delimiter}label\n{document}{delimiter}1.5\nshort{delimiter}2\n", encoding="utf-8")
    (tmp_path / "long.jsonl").write_text(
        json.dumps({"sentence": document, "label": 1.5}) + "\n" + json.dumps({"sentence": "short", "label": 2}) + "\n")
    limit = csv_module.field_size_limit()
    texts, _, labels = read_text_rows(str(path), "sentence", None, "label")
    assert csv_module.field_size_limit() == limit  # the process's setting is not changed
    assert list(texts) == list(read_text_rows(str(tmp_path / "long.jsonl"), "sentence", None, "label")[0])
    assert texts[0] == document and [float(v) for v in labels] == [1.5, 2.0]


def test_read_csv_rows_gives_each_row_the_line_it_ends_on(tmp_path):
    from keras_bert.data.csv_rows import read_csv_rows

    path = tmp_path / "rows.tsv"
    path.write_text('a\tb\n1\tx\n"2\n3"\ty\n', encoding="utf-8")
    with open(path, newline="", encoding="utf-8") as f:
        rows, lines = read_csv_rows(f, delimiter="\t")
    assert rows == [{"a": "1", "b": "x"}, {"a": "2\n3", "b": "y"}] and lines == [2, 4]
