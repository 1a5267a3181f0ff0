"""tools/export.py, run as a user runs it (a fresh process): a .keras classifier to SavedModel +
ONNX, the parity table, models.config, refusals."""

import os
import signal
import subprocess
import sys
import time

import pytest

from keras_bert.export.models_config import read_model_names
from tests.conftest import ROOT, run_tool, sigint_as_in_a_terminal
from tests.export.helpers import save_tiny_classifier


@pytest.fixture(scope="module")
def keras_file(minilm_dir, tmp_path_factory):
    return save_tiny_classifier(tmp_path_factory.mktemp("model"), minilm_dir)


def test_help():
    result = run_tool("export", "--help")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--overwrite" in result.stdout


def test_parity_failure_exits_nonzero(keras_file, tmp_path):
    """A fresh process whose ONNX tolerance is negative (so every comparison fails) runs the tool as
    its `__main__`: the tool's own path, with one constant changed before it starts."""
    tool = os.path.join(ROOT, "tools", "export.py")
    argv = [tool, keras_file, "--base_dir", str(tmp_path), "--formats", "onnx"]
    code = ("import runpy, sys\nimport keras_bert.export.onnx as onnx\nonnx.TOLERANCE = -1.0\n"
            f"sys.argv = {argv!r}\nrunpy.run_path(sys.argv[0], run_name='__main__')\n")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "FAIL" in result.stdout and "PARITY CHECK FAILED for onnx" in result.stderr


def _start_export(keras_file, base, formats="savedmodel"):
    """`python tools/export.py` as a user starts it (a Popen, so a test can signal it)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, os.path.join("tools", "export.py"), keras_file, "--base_dir", base,
                             "--name", "same", "--formats", formats, "--seq_length", "16"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_in_a_terminal)


def _wait_for_staging(model_dir, pid, timeout=300):
    """Waits until process `pid` has reserved its version (`<name>/.tmp-<version>/pid`)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for folder in os.listdir(model_dir) if os.path.isdir(model_dir) else []:
            try:
                with open(os.path.join(model_dir, folder, "pid"), encoding="utf-8") as f:
                    if f.read() == str(pid):
                        return
            except OSError:
                pass
        time.sleep(0.2)
    raise AssertionError(f"process {pid} never started writing into {model_dir}")


@pytest.fixture(scope="module")
def concurrent_exports(keras_file, tmp_path_factory):
    """Three exports of one name at once, as users start them: the first to SavedModel + ONNX, the second to
    SavedModel, the third sent SIGINT once it is writing. `(base_dir, [(returncode, stdout, stderr)] * 3)`,
    the interrupted one's last. The first is also the export whose parity table and files the next test reads
    (one set of tool processes for both tests: a verified export is ~20 CPU-s)."""
    base = str(tmp_path_factory.mktemp("concurrent") / "savedmodels")
    first, second, interrupted = (_start_export(keras_file, base, formats)
                                  for formats in ("savedmodel,onnx", "savedmodel", "savedmodel"))
    _wait_for_staging(os.path.join(base, "same"), interrupted.pid)
    interrupted.send_signal(signal.SIGINT)
    _, err = interrupted.communicate(timeout=300)
    finished = [(process.returncode, *outputs) for process, outputs in
                ((process, process.communicate(timeout=600)) for process in (first, second))]
    return base, finished + [(interrupted.returncode, "", err)]


def test_exports_prints_parity_and_refuses_an_existing_version(concurrent_exports, keras_file):
    base, ((returncode, out, err), *_) = concurrent_exports
    assert returncode == 0, out[-3000:] + err[-3000:]
    assert "serving_default[text_a]" in out and "onnx_optimized" in out and "FAIL" not in out
    assert "All exports match the Keras model." in out
    assert read_model_names(os.path.join(base, "models.config")) == ["same"]
    version = os.path.basename(out.split("savedmodel: ")[1].split()[0])
    assert os.path.isfile(os.path.join(base, "same", version, "saved_model.pb"))
    assert os.path.isfile(os.path.join(base, "same", "onnx", version, "model_optimized.onnx"))

    result = run_tool("export", keras_file, "--base_dir", base, "--name", "same", "--formats", "savedmodel",
                      "--version", version)
    assert result.returncode == 2 and "already exists" in result.stderr, result.stderr[-3000:]
    assert run_tool("export", "missing.keras", "--base_dir", base).returncode == 2


def test_concurrent_exports_get_distinct_versions_and_ctrl_c_leaves_no_version(concurrent_exports):
    """Three exports of one name at once: two finish with versions 1 and 2, each verified; the third,
    sent SIGINT once it is writing, exits 130 with one line and leaves nothing behind."""
    base, (*finished, (code, _, err)) = concurrent_exports
    model_dir = os.path.join(base, "same")
    assert code == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert err.splitlines()[-1] == "export.py: interrupted; the version being written was removed; run the command again."
    for returncode, out, err in finished:
        assert returncode == 0, err[-3000:]
        assert "All exports match the Keras model." in out
    written = sorted(os.path.basename(out.split("savedmodel: ")[1].split()[0]) for _, out, _ in finished)
    assert len(set(written)) == 2 and set(written) <= {"1", "2", "3"}, written  # the interrupted one's is freed
    assert sorted(set(os.listdir(model_dir)) - {"onnx"}) == written  # no staging folder, no half version
    assert len(os.listdir(os.path.join(model_dir, "onnx"))) == 1  # the first's ONNX version alone
    assert all(os.path.isfile(os.path.join(model_dir, v, "saved_model.pb")) for v in written)
    assert read_model_names(os.path.join(base, "models.config")) == ["same"]
