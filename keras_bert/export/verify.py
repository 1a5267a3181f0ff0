"""Parity checks: run an exported artifact in a fresh process and compare it with the Keras model.

The references (sample inputs, the Keras model's outputs) come from `verify_reference.py`.
The artifact runs in a subprocess that imports neither keras nor keras_bert (SavedModel:
tensorflow + tensorflow_text; ONNX: onnxruntime; TFLite: ai_edge_litert + tensorflow_text
for the tokenizer kernels), so a passing check shows the file stands on its own.
"""

import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

from keras_bert.errors import ConversionError  # noqa: F401 (export's one conversion error)
from keras_bert.export.precision import TOLERANCE
from keras_bert.export.verify_reference import (keras_outputs, sample_ids, task_signature_inputs, text_samples,
                                               text_to_ids)

_PROBABILITY_OUTPUTS = ("logits", "probabilities", "start_logits", "end_logits")


class ParityError(AssertionError):
    """An exported artifact's outputs differ from the Keras model's beyond tolerance."""


def conversion_failed(artifact, path, error):
    """The report of a format that could not be converted: one failed row, its note the error's first line."""
    note = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return ExportReport(path, rows=[ParityRow(artifact, "-", "conversion", ok=False, note=note)])


@dataclasses.dataclass
class ParityRow:
    """One output of one artifact compared with Keras."""

    artifact: str
    signature: str
    output: str
    max_abs_diff: float = float("nan")
    agreement: float = float("nan")  # top-1 (argmax / first id) agreement, or exact-match rate
    tolerance: float = None
    min_agreement: float = None
    ok: bool = True
    note: str = ""


@dataclasses.dataclass
class ExportReport:
    """Paths written by an export and the parity rows that check them."""

    path: str
    rows: list = dataclasses.field(default_factory=list)
    extra: dict = dataclasses.field(default_factory=dict)

    @property
    def ok(self):
        return all(row.ok for row in self.rows)

    def table(self):
        return format_table(self.rows)

    def raise_if_failed(self):
        failed = [row for row in self.rows if not row.ok]
        if failed:
            raise ParityError(
                f"Export {self.path} does not match the Keras model:\n{format_table(failed)}")


def prepare_output_dir(output_dir, paths, overwrite):
    """Creates `output_dir`; refuses to replace any of `paths` unless `overwrite`."""
    existing = [p for p in paths if os.path.exists(p)]
    if existing and not overwrite:
        raise FileExistsError(f"{existing} already exist(s); pass overwrite=True (--overwrite) to replace.")
    os.makedirs(output_dir, exist_ok=True)


def format_table(rows):
    """A fixed-width text table of parity rows."""
    header = ("artifact", "signature", "output", "max_abs_diff", "top1_agree", "tolerance", "status")
    lines = [header]
    for r in rows:
        tolerance = "-" if r.tolerance is None else f"{r.tolerance:.0e}"
        if r.tolerance is None and r.min_agreement is not None:
            tolerance = f"agree>={r.min_agreement:.2f}" if not np.isnan(r.agreement) else "report only"
        lines.append((
            r.artifact, r.signature, r.output,
            "-" if np.isnan(r.max_abs_diff) else f"{r.max_abs_diff:.2e}",
            "-" if np.isnan(r.agreement) else f"{100 * r.agreement:.1f}%",
            tolerance, ("ok" if r.ok else "FAIL") + (f" ({r.note})" if r.note else "")))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


# ----- comparison

def compare(artifact, signature, reference, actual, tolerance, min_agreement=1.0, input_mask=None, relative=False,
            report_discrete=False):
    """Rows comparing each reference output with the artifact's; see `ParityRow`.

    `relative`: the tolerance scales with the output's largest magnitude (over 1): bfloat16 rounds
    each value to 8 mantissa bits, so its differences grow with the logits' scale.
    `report_discrete`: ids, labels and texts are reported, not checked (bfloat16: near-ties, e.g. a
    pretrainer's top token over 30,000 close logits, flip between kernels; the floats they are
    picked from are checked).

    Per-token outputs (`[batch, seq, ...]`) are compared at real tokens only when
    `input_mask` is given: hidden states at padding positions feed nothing, and there
    float rounding differences between runtimes grow to ~1e-4 on real checkpoints
    (measured on MiniLM-L6: Keras vs float64 PyTorch 1.3e-4 at padding, 2e-6 at tokens).
    """
    rows = []
    for name, want in reference.items():
        row = ParityRow(artifact, signature, name, tolerance=tolerance, min_agreement=min_agreement)
        rows.append(row)
        if name not in actual:
            row.ok, row.note = False, f"missing; artifact has {sorted(actual)}"
            continue
        got = np.asarray(actual[name])
        want = np.asarray(want)
        if got.shape != want.shape:
            row.ok, row.note = False, f"shape {got.shape} != Keras {want.shape}"
            continue
        if input_mask is not None and want.ndim >= 2 and want.shape[:2] == np.shape(input_mask):
            keep = np.asarray(input_mask).astype(bool)
            got, want = got[keep], want[keep]
        if want.dtype.kind == "f":
            row.max_abs_diff = float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0))
            if name in _PROBABILITY_OUTPUTS and want.size:
                row.agreement = float(np.mean(np.argmax(got, -1) == np.argmax(want, -1)))
            row.ok = bool(np.all(np.isfinite(got)))
            if tolerance is not None:
                scale = max(1.0, float(np.max(np.abs(want), initial=0.0))) if relative else 1.0
                row.ok = row.ok and row.max_abs_diff <= tolerance * scale
            elif min_agreement is not None and not np.isnan(row.agreement):
                row.ok = row.ok and row.agreement >= min_agreement
        else:
            if name in ("top_k_ids", "top_k_tokens"):
                got, want = got[..., :1], want[..., :1]
            if want.dtype.kind in "SOU":
                got, want = (np.array([_as_bytes(x) for x in a.ravel()], dtype=object) for a in (got, want))
            row.agreement = float(np.mean(got == want)) if want.size else 1.0
            if report_discrete:
                row.note = "reported"
            else:
                row.ok = row.agreement >= (1.0 if min_agreement is None else min_agreement)
    return rows


def _as_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


# ----- running an artifact in a fresh process

def run_artifact(fmt, path, calls, timeout=900):
    """Runs `calls` (`[(signature, inputs dict[, other artifact path])]`) in one fresh process.

    Returns:
        (list of output dicts, one per call; info dict: `imported`, which of keras,
        keras_bert, tensorflow, tensorflow_text the worker ended up importing).
    """
    results = []
    with tempfile.TemporaryDirectory(prefix="keras_bert_verify_") as tmp:
        job_calls = []
        for i, (signature, inputs, *other_path) in enumerate(calls):
            in_path, out_path = os.path.join(tmp, f"in{i}.npz"), os.path.join(tmp, f"out{i}.npz")
            np.savez(in_path, **{k: _to_numpy(v) for k, v in inputs.items()})
            job_calls.append({"signature": signature, "inputs": in_path, "outputs": out_path})
            if other_path:
                job_calls[-1]["path"] = os.path.abspath(other_path[0])
        job = {"format": fmt, "path": os.path.abspath(path), "calls": job_calls}
        stdout = run_worker("verify_worker.py", job, tmp, f"the exported {fmt} artifact {path}", timeout)
        info = json.loads(stdout.strip().splitlines()[-1])
        for call in job_calls:
            with np.load(call["outputs"], allow_pickle=True) as data:
                results.append({name: data[name] for name in data.files})
    return results, info


def run_worker(script, job, cwd, running, timeout=900, **env):
    """The stdout of export/`script` run on `job` (JSON) in a fresh process, without this one's PYTHONPATH;
    a RuntimeError naming `running` (what ran) and ending with its stderr if it fails."""
    source = pathlib.Path(__file__).with_name(script).read_text(encoding="utf-8")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **env)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", source, json.dumps(job)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"Running {running} in a fresh process failed (exit {proc.returncode}):\n"
                           f"{proc.stderr[-4000:]}")
    return proc.stdout


def _to_numpy(value):
    value = np.asarray(value)
    if value.dtype.kind in "UO":
        return np.array([_as_bytes(v) for v in value.ravel()], dtype=bytes).reshape(value.shape)
    return value


def check_saved_model(serving, export_dir, sample_texts=None, precision="fp32", float32_serving=None):
    """Every signature of a SavedModel, in a fresh process, against Keras (in `precision`, with its
    `precision.TOLERANCE`: relative to the outputs' scale for bfloat16; `float32_serving`, the same
    model in float32, adds a report-only row of how far the precision moved `serve_ids`): the ids
    and text ones against the Keras model's outputs, the task's (e.g. `classify`) against the same
    signature run here on the Keras model."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    ids = sample_ids(serving, sample_texts)
    calls = [("serve_ids", ids)]
    references = [("serve_ids", keras_outputs(serving, ids), ids["input_mask"])]
    if serving.tokenizer is not None:
        for label, texts in text_samples(serving, sample_texts):
            ref_ids = text_to_ids(serving, texts["text_a"], texts.get("text_b"))
            calls.append(("serving_default", texts))
            references.append((f"serving_default[{label}]", keras_outputs(serving, ref_ids),
                               ref_ids["input_mask"]))
        for name, function in serving.text_functions().items():  # the task's own (classify, ...), as saved
            inputs = task_signature_inputs(function, sample_texts)
            want = function(**{key: tf.constant(value, tf.string) for key, value in inputs.items()})
            calls.append((name, inputs))
            references.append((name, {key: value.numpy() for key, value in want.items()}, None))
    results, info = run_artifact("savedmodel", export_dir, calls)
    rows = []
    for (label, reference, mask), actual in zip(references, results):
        rows += compare("savedmodel", label, reference, actual, TOLERANCE[precision], input_mask=mask,
                        relative=precision != "fp32", report_discrete=precision != "fp32")
    if float32_serving is not None:  # what bfloat16 changed: reported, not checked
        rows += compare("savedmodel", "serve_ids vs float32", keras_outputs(float32_serving, ids), results[0],
                        None, min_agreement=None, input_mask=ids["input_mask"], report_discrete=True)
    if {"keras", "keras_bert"} & set(info["imported"]):
        rows.append(ParityRow("savedmodel", "-", "hermetic load", ok=False,
                              note=f"loading imported {info['imported']}"))
    return rows
