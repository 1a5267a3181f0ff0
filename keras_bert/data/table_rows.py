"""read_table_rows: the one reader of the tasks' tables (CSV / TSV / JSONL files of named columns)."""

import csv
import json
import os

from keras_bert.data.csv_rows import read_csv_rows

TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl"}


def read_table_rows(path, format="auto", lines=None):  # pylint: disable=redefined-builtin
    """The rows of a CSV / TSV / JSONL file as a list of dicts (column name -> value); `lines` (a list) gets
    each row's line number in the file. `format`: "csv", "tsv", "jsonl" or "auto" (by the extension,
    `TABLE_FORMATS`). A TSV is read without quoting (GLUE's bare quotes), a leading BOM dropped; a missing
    file, an unknown format, a bad JSON line or no rows are one-line errors naming the file.

    Example:
        >>> rows = read_table_rows("train.csv")
        >>> rows[0]["sentence"]
    """
    lines = [] if lines is None else lines
    if not os.path.exists(path):
        raise FileNotFoundError(f"Classification file {path!r} does not exist.")
    if format == "auto":
        extension = os.path.splitext(path)[1].lower()
        if extension not in TABLE_FORMATS:
            raise ValueError(
                f"Cannot tell the format of {path!r} from its extension {extension!r}; expected one "
                f"of {sorted(TABLE_FORMATS)}. Pass format='csv', 'tsv' or 'jsonl'.")
        format = TABLE_FORMATS[extension]
    if format not in ("csv", "tsv", "jsonl"):
        raise ValueError(f"Unknown format {format!r}; expected 'csv', 'tsv', 'jsonl' or 'auto'.")
    with open(path, encoding="utf-8-sig", newline="") as f:  # -sig: drop a leading BOM (Excel)
        if format == "jsonl":
            rows = []
            for line_number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"Line {line_number} of {path!r} is not valid JSON ({e}); "
                                     "expected one JSON object per line.") from None
                if not isinstance(row, dict):
                    raise ValueError(f"Line {line_number} of {path!r} holds a {type(row).__name__}; "
                                     "expected a JSON object mapping column names to values.")
                rows.append(row)
                lines.append(line_number)
        else:
            # GLUE's TSVs contain bare quotes inside sentences: read TSV without quoting,
            # as Google's run_classifier.py does.
            rows, row_lines = (read_csv_rows(f) if format == "csv"
                               else read_csv_rows(f, "\t", csv.QUOTE_NONE))
            lines.extend(row_lines)
    if not rows:
        raise ValueError(f"{path!r} has no examples; expected a header row and at least one row "
                         "of data (or at least one JSON line).")
    return rows
