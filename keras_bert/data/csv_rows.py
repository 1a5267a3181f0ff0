"""The one CSV/TSV reader: rows as dicts, with no field size limit (a long document is one field)."""

import csv
import sys

# Python's csv refuses fields over 131,072 characters (`field larger than field limit`), a limit
# that is process-global: it is raised only while our own reader reads, then restored.
_NO_LIMIT = min(sys.maxsize, 2**31 - 1)  # a C long on every platform


def read_csv_rows(f, delimiter=",", quoting=csv.QUOTE_MINIMAL):
    """The rows of open text file `f` (header first) as dicts, and each row's line number.

    Args:
        f: a text file opened with `newline=""`.
        delimiter, quoting: as `csv.DictReader`'s (TSV: "\\t" and `csv.QUOTE_NONE`).

    Returns:
        `(rows, lines)`: the list of dicts and the line number each row ends on.

    Example:
        >>> with open("train.csv", newline="", encoding="utf-8") as f:
        ...     rows, lines = read_csv_rows(f)
    """
    rows, lines = [], []
    previous = csv.field_size_limit(_NO_LIMIT)
    try:
        reader = csv.DictReader(f, delimiter=delimiter, quoting=quoting)
        for row in reader:
            rows.append(row)
            lines.append(reader.line_num)
    finally:
        csv.field_size_limit(previous)
    return rows, lines
