"""read_table_rows: the one reader of the tasks' tables; CSV, TSV (unquoted) and JSONL rows with their lines."""

import pytest

from keras_bert.data.table_rows import read_table_rows


def test_csv_tsv_and_jsonl_rows_with_their_lines_and_one_line_refusals(tmp_path):
    (tmp_path / "a.csv").write_text('\ufeffsentence,label\n"a, b",1\nc,0\n', encoding="utf-8")
    (tmp_path / "a.tsv").write_text('sentence\tlabel\nhe said "hi\t1\n', encoding="utf-8")
    (tmp_path / "a.jsonl").write_text('{"sentence": "x", "label": 2}\n\n{"sentence": "y", "label": 3}\n')
    lines = []
    assert read_table_rows(str(tmp_path / "a.csv"), lines=lines) == [{"sentence": "a, b", "label": "1"},
                                                                     {"sentence": "c", "label": "0"}]
    assert lines == [2, 3]
    assert read_table_rows(str(tmp_path / "a.tsv"))[0]["sentence"] == 'he said "hi'  # GLUE's bare quotes
    lines = []
    assert [row["label"] for row in read_table_rows(str(tmp_path / "a.jsonl"), lines=lines)] == [2, 3]
    assert lines == [1, 3]
    (tmp_path / "a.txt").write_text("x\n")
    with pytest.raises(ValueError, match=r"extension '\.txt'.*Pass format="):
        read_table_rows(str(tmp_path / "a.txt"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_table_rows(str(tmp_path / "missing.csv"))
