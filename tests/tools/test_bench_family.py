"""`tools/benchmark.py family`: ModernBERT against transformers, on a tiny seeded folder (`--small`)."""

import re

from tests.conftest import run_tool


def test_small_run_prints_backend_threads_load_ratios_and_agreement(tmp_path):
    result = run_tool("benchmark", "family", "--small", "--cache_dir", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert (tmp_path / "modernbert_small_seed0" / "model.safetensors").is_file()  # the seeded folder, saved once
    assert re.search(r"backend \w+.*threads: torch \d+, ours \d+", out), out
    assert "CPU before: load average" in out and "CPU after:  load average" in out, out
    assert re.search(r"throughput ratio \(keras / transformers\): [\d.]+x padded, [\d.]+x grouped", out), out
    assert re.search(r"long ratio \(transformers / keras\): time [\d.]+x, peak memory [\d.]+x", out), out
    # Grouping by length computes fewer tokens than padding every batch to its longest row.
    computed = {name: int(n) for name, n in re.findall(r"^  (keras\w*) .* computed (\d+) tokens", out, re.M)}
    assert computed["keras_grouped"] < computed["keras"], out
    diffs = [float(d) for d in re.findall(r"max \|diff\| ([\d.e+-]+)", out)]
    assert len(diffs) == 4 and max(diffs) < 1e-4, out  # 3 throughput contestants + the long forward


def test_bad_lengths_are_refused_in_one_line():
    result = run_tool("benchmark", "family", "--lengths", "900,64")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--lengths" in lines[0] and "MIN <= MAX" in lines[0], result.stderr
