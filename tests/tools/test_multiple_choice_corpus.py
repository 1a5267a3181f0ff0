"""`tools/_multiple_choice_corpus.py`: which of four lines follows a passage, wrong endings from OTHER texts."""

import csv

from tests.conftest import run_tool

# Each line names its text and its place, so the checks below can read where an ending came from.
SPEECH = "{text}.\n" + "".join(f"{{text}} line {n} of four words\n" for n in range(1, 5))


def write_texts(folder, names=("alpha", "beta", "gamma", "delta")):
    for name in names:
        speeches = "\n".join(SPEECH.format(text=name.upper()).replace("line", f"s{s} line") for s in range(6))
        (folder / f"{name}_gut.txt").write_text(speeches + "\n[Exit.]\n", encoding="utf-8")
    (folder / "alpha_gut_f.txt").write_text("ALPHA FOLIO line of four words\n" * 9, encoding="utf-8")  # not used


def test_builder_writes_swag_columns_the_next_line_and_endings_of_other_texts(tmp_path):
    write_texts(tmp_path)
    result = run_tool("_multiple_choice_corpus", tmp_path / "out", "--train", 12, "--eval", 4,
                      "--texts_dir", tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = []
    for name, count in (("train", 12), ("eval", 4)):
        with open(tmp_path / "out" / f"{name}.csv", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == count and list(rows[0]) == ["context", "ending0", "ending1", "ending2", "ending3", "label"]
        for row in rows:
            endings = [row[f"ending{i}"] for i in range(4)]
            right = endings.pop(int(row["label"]))
            context = row["context"].split(" of four words")
            text, last = context[0].split()[0], context[-2].split()[-1]  # e.g. "BETA", "2"
            assert right.startswith(text) and right.split()[3] == str(int(last) + 1)  # the line that follows
            assert len(context) - 1 in (2, 3) and "FOLIO" not in row["context"] + " ".join(endings)
            assert all(not ending.startswith(text) for ending in endings)  # the wrong ones: other texts
            seen += [line.strip() for line in context[:-1]] + [right.split(" of four")[0]]
    assert len(seen) == len(set(seen))  # no line in two examples


def test_builder_refuses_more_examples_than_the_texts_hold(tmp_path):
    write_texts(tmp_path, ("alpha", "beta"))
    result = run_tool("_multiple_choice_corpus", tmp_path / "out", "--train", 500, "--texts_dir", tmp_path)
    assert result.returncode != 0
    assert "--train 500" in result.stderr and "ask for fewer" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
