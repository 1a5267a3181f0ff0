"""`tools/benchmark.py NAME --record` rewrites that benchmark's table in a BENCHMARKS.md from a real run."""

import os
import re

import pytest

from tests.conftest import ROOT, run_tool

# The cheapest real benchmark: packed vs padded rows of a 1-layer, hidden-16 BERT, one timed step.
TINY_PACK = ["--seq_lengths", "32", "--tokens_per_batch", "128", "--layers", "1", "--hidden", "16", "--heads", "2",
             "--steps", "1", "--warmup", "1", "--jit_compile", "off"]
BEFORE = """# Benchmarks

## pack

Hand-written notes stay.

<!-- recorded: pack -->
| date (UTC) | machine | load | command | seconds |
|---|---|---|---|---|
| 2020-01-01 | an old machine | 9.9 | `python tools/benchmark.py pack` | 1 |
<!-- end recorded: pack -->

## train

<!-- recorded: train -->
the train table, untouched
<!-- end recorded: train -->
"""


@pytest.mark.slow
def test_record_rewrites_only_the_named_benchmarks_table_from_a_real_run(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(BEFORE, encoding="utf-8")
    result = run_tool("benchmark", "pack", "--record", "--record_file", path, *TINY_PACK)
    assert result.returncode == 0, result.stderr[-3000:]
    text = path.read_text(encoding="utf-8")
    pack = text[text.index("<!-- recorded: pack -->"):text.index("<!-- end recorded: pack -->")]
    assert "2020-01-01" not in pack and "an old machine" not in pack
    row = re.search(r"^\| (\d{4}-\d\d-\d\d \d\d:\d\d) \| (.+?) \| ([\d.]+) -> ([\d.]+) \| `(.+?)` \| (\d+) \|$",
                    pack, re.M)
    assert row, pack
    assert f"{os.cpu_count()} cores" in row.group(2)
    assert row.group(5) == "python tools/benchmark.py pack " + " ".join(TINY_PACK)
    # The run's own printed result, as it printed it.
    summary = next(line for line in result.stdout.splitlines() if "packed / padded useful tokens" in line)
    assert summary in pack
    assert "Hand-written notes stay." in text and "the train table, untouched" in text
    assert text.startswith("# Benchmarks\n") and text.count("<!-- recorded:") == 2


def test_a_benchmark_without_a_section_gets_one_at_the_end():
    record = _record_module()
    text = record.rewrite_section("# Benchmarks\n\n## pack\n", "embed", "| table |\n")
    assert text == ("# Benchmarks\n\n## pack\n\n## embed\n\n"
                    "<!-- recorded: embed -->\n| table |\n<!-- end recorded: embed -->\n")
    again = record.rewrite_section(text, "embed", "| new |\n")
    assert again == text.replace("| table |", "| new |")


@pytest.mark.parametrize("argv, message", [
    (["pack", "--record", "--record_file", "no/such/BENCHMARKS.md"],
     "--record_file no/such/BENCHMARKS.md does not exist"),
    (["pack", "--record_file", "docs/BENCHMARKS.md"], "only read with --record"),
    (["pack", "--record", "--steps", "many"], "--steps"),
])
def test_bad_record_flags_are_refused_in_one_line_and_the_file_is_untouched(argv, message, tmp_path):
    before = open(os.path.join(ROOT, "docs", "BENCHMARKS.md"), encoding="utf-8").read()
    result = run_tool("benchmark", *argv)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert open(os.path.join(ROOT, "docs", "BENCHMARKS.md"), encoding="utf-8").read() == before


def test_every_benchmark_has_its_section_in_docs():
    text = open(os.path.join(ROOT, "docs", "BENCHMARKS.md"), encoding="utf-8").read()
    for name in _benchmark_names():
        assert f"<!-- recorded: {name} -->" in text and f"<!-- end recorded: {name} -->" in text, name


def _record_module():
    """tools/_benchmark_record.py (imports nothing that changes this process)."""
    import importlib.util

    path = os.path.join(ROOT, "tools", "_benchmark_record.py")
    spec = importlib.util.spec_from_file_location("benchmark_record", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _benchmark_names():
    """The names in tools/benchmark.py's BENCHMARKS, read from its source (importing it would set its
    environment defaults in this process)."""
    import ast

    tree = ast.parse(open(os.path.join(ROOT, "tools", "benchmark.py"), encoding="utf-8").read())
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "BENCHMARKS")
    return list(ast.literal_eval(node.value))
