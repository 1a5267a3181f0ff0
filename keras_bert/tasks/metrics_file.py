"""The one writer of `metrics.json`: strict JSON, an undefined metric as null with the reason."""

import json
import math
import os


def write_metrics(path, metrics, explain=None):
    """Writes `metrics` to `path` as strict JSON; returns `{metric: note}` for those that are undefined.

    A metric that is not a finite number (Pearson of constant targets is NaN, as scipy's) is
    written as `null`, and `"notes"` says why: `NaN` is not JSON (Python's `json` wrote it,
    strict readers such as `jq` or JavaScript's `JSON.parse` refuse the file).

    Args:
        path: the file (written through a temporary file and a rename).
        metrics: `{name: number}` (the task's `evaluate`).
        explain: `fn(name, value) -> str`: why the task's metric `name` is undefined (default:
            it is not a finite number).

    Example:
        >>> write_metrics("runs/stsb/metrics.json", {"pearson": float("nan"), "mse": 0.5})
        {'pearson': 'nan: not a finite number'}
    """
    values, notes = {}, {}
    for name, value in metrics.items():
        if isinstance(value, float) and not math.isfinite(value):
            values[name] = None
            notes[name] = explain(name, value) if explain else f"{value}: not a finite number"
        else:
            values[name] = value
    if notes:
        values["notes"] = notes
    tmp = os.fspath(path) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(values, f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    return notes
