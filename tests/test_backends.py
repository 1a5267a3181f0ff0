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
# A preset's config/weights disagreement is a one-line error before any number is computed (TensorFlow only).
MATRIX_DESELECT = ("not paper_sizes and not every_preset and not memorises and not modernbert_pretrainer "
                   "and not roberta_keras_file_saves_back and not unpacked_losses "
                   "and not is_the_pooled_output_and_a_classifier and not is_the_head_per_token_and_a_classifier "
                   "and not roberta_preset_whose_config_disagrees")
# JAX compiles every op of a new shape with XLA: ~230 of the matrix's ~270 CPU-s (PyTorch's eager run: ~40). On
# JAX the matrix leaves out these tests; each still runs on TensorFlow (the main run) and PyTorch, and what they
# exercise keeps a numeric test on JAX (named after each).
JAX_DESELECT = (
    # DeBERTa's six heads both ways (15 CPU-s): test_sequence_output_equals_debertav2model_with_and_without_buckets
    # (the encoder vs transformers), the head classes in test_task_head / test_sequence_head / test_span_head.
    "every_deberta_head_equals_transformers_both_ways",
    # DeBERTa's keras-hub preset (weight layout; 6 CPU-s): the same encoder parity test.
    "keras_hub_presets_both_ways",
    # DisentangledAttentionBlock's round trip + padding (8 CPU-s): test_one_training_step_changes_the_block, and
    # every block of the encoder parity test above.
    "config_round_trip_projections_and_padding_invariance",
    # BertEncoder.pooled_output_only + the block's query_positions (13 CPU-s): pooled_output_only in
    # test_a_narrower_embedding_is_projected_to_hidden_size, query_positions in
    # test_last_layer_computed_for_the_read_rows_only_keeps_the_outputs (the pretrainer's masked rows).
    "pooled_output_only_and_query_positions",
    # BertPretrainer's loss by hand (8 CPU-s): its compute_loss in test_last_layer_computed_for_the_read_rows_only_
    # keeps_the_outputs, its evaluate in test_pretrainer_without_nsp_labels_trains_on_mlm_alone.
    "pretraining_loss_is_mean_over_real_masked_positions",
    # with_dtype's second row (6 CPU-s): the [build_encoder] row takes the same path.
    "rebuilds_itself_in_another_dtype_with_its_weights[build_pretrainer]",
    # ModernBertEncoder's names, round trip, padding (11 CPU-s): test_sequence_output_equals_modernbert_model_eager_
    # and_sdpa (padded batches vs transformers) and test_masked_lm_logits_equal_modernbert_for_masked_lm.
    "(test_modernbert_encoder and config_round_trip_and_named_variables)",
    "outputs_padding_invariance_and_token_types_ignored",
    # ModernBERT's packed attention (9 CPU-s): the same mask in test_packed_rows_attend_within_their_own_example_on_
    # every_path (band and global attention) and BERT's packed test_attention_stays_inside_each_example.
    "(test_modernbert_packed and attention_stays_inside_each_example)",
    # MultipleChoiceHead vs a one-unit classifier (5 CPU-s): test_multiple_choice_row_model_scores_rows_and_a_
    # classifier_is_its_own, test_a_head_rebuilds_from_its_own_config_in_a_file_and_in_bf16[multiple_choice].
    "multiple_choice_scores_each_row_like_a_one_unit_classifier",
    # Three of the four window/length rows of the band (8 CPU-s): the [13-4] row (padding, several blocks).
    "sliding_window_equals_the_masked_dense_attention[5-8]",
    "sliding_window_equals_the_masked_dense_attention[37-1]",
    "sliding_window_equals_the_masked_dense_attention[40-8]",
    # ModernBertBlock's global-attention layer checks (5 CPU-s): the local row [2];
    # test_chunked_global_queries_equal_the_whole_score_matrix runs global attention.
    "(test_modernbert_block and test_layer_checks[None])",
)


def matrix_deselect(backend):
    """The -k expression of the matrix run on `backend`."""
    return " and ".join([MATRIX_DESELECT, *(f"not {test}" for test in (JAX_DESELECT if backend == "jax" else ()))])

on_tensorflow_only = pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="starts the other backends from the default (TensorFlow) run")


# XLA's CPU backend at LLVM -O0: the JAX matrix compiles hundreds of small programs and runs each once
# (the same results; the JAX run took 103 s instead of 122 s, twice each, on the idle 2-core machine),
# with XLA's older CPU emitters, which compile such small programs faster (60 small programs: 15 CPU-s
# instead of 22-25, three runs each). Also the JAX training runs' (tests/training/test_jax_strategy.py,
# test_without_tensorflow.py).
FAST_XLA = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false"


def backend_env(backend):
    # One OpenMP thread: PyTorch's CPU pool otherwise spins on every core between ops, and the
    # suite's other pytest worker (README's -n 2) shares those cores.
    return dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="2", OMP_NUM_THREADS="1", XLA_FLAGS=FAST_XLA,
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
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", matrix_deselect(backend),
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
