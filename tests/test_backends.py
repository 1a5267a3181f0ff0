"""The core on every Keras 3 backend: no TensorFlow import, the test matrix on JAX and PyTorch.

The default run uses the TensorFlow backend (tests/conftest.py); these tests start fresh
interpreters with `KERAS_BACKEND=jax` and `=torch`, so README's one test command covers
the matrix.
"""

import os
import subprocess
import sys

import keras
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OTHER_BACKENDS = ("jax", "torch")
# Layers, builders, config and the real-weights parity (MiniLM vs transformers <= 1e-4).
MATRIX_TESTS = ["tests/layers", "tests/models", "tests/test_config.py",
                "tests/checkpoints/test_loading.py::test_minilm_matches_transformers_bert_model"]
# Backend-independent and slow off TensorFlow's graph mode (~3 min on PyTorch): parameter
# counts of the 110M/340M models and of every preset, a 30-epoch memorisation run, the ModernBERT
# pretrainer's fit (its encoder's parity runs on every backend) and a RoBERTa file saved back in a
# fresh TensorFlow process (~20 s each off TensorFlow); the packed batch's per-example losses (~25 s off
# TensorFlow; the packed attention mask, the backend's part, runs everywhere in
# test_attention_stays_inside_each_example) and ModernBERT's HF head mappings (weight names and layout;
# the encoder's numerics run everywhere in test_modernbert_encoder).
MATRIX_DESELECT = ("not paper_sizes and not every_preset and not memorises and not modernbert_pretrainer "
                   "and not roberta_keras_file_saves_back and not unpacked_losses "
                   "and not is_the_pooled_output_and_a_classifier and not is_the_head_per_token_and_a_classifier")

on_tensorflow_only = pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="starts the other backends from the default (TensorFlow) run")


def backend_env(backend):
    # One OpenMP thread: PyTorch's CPU pool otherwise spins on every core between ops, and the
    # suite's other pytest worker (README's -n 2) shares those cores.
    # XLA's CPU backend at LLVM -O0: the JAX matrix compiles hundreds of small programs and runs each once
    # (the same results; the JAX run took 103 s instead of 122 s, twice each, on the idle 2-core machine).
    return dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="2", OMP_NUM_THREADS="1",
                XLA_FLAGS="--xla_backend_optimization_level=0",
                PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))


def run_python(backend, code, timeout=300):
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=backend_env(backend),
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{backend}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.parametrize("backend", OTHER_BACKENDS)
def test_core_imports_no_tensorflow(backend):
    out = run_python(backend, (
        "import sys, keras_bert, keras_bert.layers, keras_bert.models, keras_bert.config\n"
        "keras_bert.build_encoder\n"
        "print(sorted(m for m in ('tensorflow', 'tensorflow_text') if m in sys.modules))"))
    assert out.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
@on_tensorflow_only
def test_layers_models_and_minilm_parity_on_jax_and_torch():
    """One pytest per backend, run side by side (each is mostly single-threaded)."""
    runs = {backend: subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", MATRIX_DESELECT,
         *MATRIX_TESTS], cwd=ROOT, env=backend_env(backend), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True) for backend in OTHER_BACKENDS}
    failures = []
    for backend, run in runs.items():
        out, _ = run.communicate(timeout=900)
        summary = out.strip().splitlines()[-1] if out.strip() else ""
        print(f"{backend}: {summary}")
        if run.returncode != 0 or " passed" not in summary:
            failures.append(f"--- KERAS_BACKEND={backend} ---\n{out[-4000:]}")
    assert not failures, "\n".join(failures)
