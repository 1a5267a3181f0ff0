"""keras_bert.compat: each private API still exists and behaves as relied on, on the pinned versions.

A failure here after an upgrade names the touchpoint to re-check in keras_bert/compat.py.
"""

import os
import subprocess
import sys

import keras
import pytest
import tensorflow as tf

from keras_bert import compat


@pytest.mark.parametrize("package", sorted(compat.VERIFIED))
def test_installed_versions_are_the_verified_ones(package):
    installed = __import__(package).__version__
    assert installed.startswith(compat.VERIFIED[package] + "."), (
        f"{package} {installed} is installed; keras_bert/compat.py was checked on "
        f"{compat.VERIFIED[package]}.x: re-check its touchpoints, then update VERIFIED.")


def test_importing_compat_loads_no_tensorflow():
    # The module alone (the package __init__ is not what this checks).
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('compat', sys.argv[1]); "
            "spec.loader.exec_module(importlib.util.module_from_spec(spec)); print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, compat.__file__], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_in_multi_worker_mode_is_false_for_one_process():
    assert hasattr(tf.distribute.get_strategy().extended, "_in_multi_worker_mode")
    assert compat.in_multi_worker_mode(tf.distribute.get_strategy()) is False
    assert compat.in_multi_worker_mode(tf.distribute.MirroredStrategy(["/cpu:0"])) is False


def test_in_xla_context_only_while_compiling():
    seen = []

    def probe(x):
        seen.append(compat.in_xla_context())
        return x + 1

    tf.function(probe, jit_compile=True)(tf.constant(1.0))
    tf.function(probe, jit_compile=False)(tf.constant(1.0))
    probe(tf.constant(1.0))
    assert seen == [True, False, False]


def test_model_without_strategy_unsets_and_restores():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    with strategy.scope():
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    assert model._distribute_strategy is strategy  # pylint: disable=protected-access
    with compat.model_without_strategy(model):
        assert model._distribute_strategy is None  # pylint: disable=protected-access
    assert model._distribute_strategy is strategy  # pylint: disable=protected-access


def test_tf2onnx_bounded_memory_patches_only_inside_the_block():
    import onnx
    from tf2onnx import graph as tf2onnx_graph

    original = tf2onnx_graph.Node.update_proto
    saved_env = os.environ.get("TF2ONNX_CATCH_ERRORS")
    with compat.tf2onnx_bounded_memory():
        assert tf2onnx_graph.Node.update_proto is not original
        assert os.environ["TF2ONNX_CATCH_ERRORS"] == "false"
        proto = onnx.helper.make_node("Relu", ["x"], ["y"], name="relu")
        graph = tf2onnx_graph.Graph([proto], output_shapes={"y": [2]}, dtypes={"y": onnx.TensorProto.FLOAT})
        node = graph.get_node_by_name("relu")
        before = node._op  # pylint: disable=protected-access
        node.update_proto()
        assert node._op is not before and node._op.op_type == "Relu"  # pylint: disable=protected-access
    assert tf2onnx_graph.Node.update_proto is original
    assert os.environ.get("TF2ONNX_CATCH_ERRORS") == saved_env


def test_training_loss_and_tracker_are_what_fit_reports():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = tf.ones([4, 3]), tf.zeros([4, 1])
    loss = compat.compute_training_loss(model, x, y, model(x), None)
    assert float(loss) == pytest.approx(float(keras.losses.mean_squared_error(y, model(x)).numpy().mean()))
    compat.track_loss(model, loss, 4)
    assert float(model.get_metrics_result()["loss"]) == pytest.approx(float(loss))


def test_ortx_library_is_the_installed_extensions_library():
    import onnxruntime

    path = compat.ortx_library()
    assert os.path.isfile(path) and "_extensions_pydll" in os.path.basename(path)
    onnxruntime.SessionOptions().register_custom_ops_library(path)  # the file onnxruntime loads


def test_shared_sentencepiece_model_outlives_the_kernel_cache_that_tf_texts_own_dies_with(tmp_path):
    """tf.random.set_seed (every run's keras.utils.set_random_seed) clears the eager kernel cache: tf-text's
    kernel-private model resource goes with it (the reason for the touchpoint); the named one stays."""
    import tensorflow_text as text

    spm = pytest.importorskip("sentencepiece")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(["the cat sat on the mat", "a dog ran"] * 20),
                                   model_prefix=str(tmp_path / "sp"), vocab_size=20, hard_vocab_limit=False,
                                   minloglevel=2)
    model = (tmp_path / "sp.model").read_bytes()
    ours, theirs = compat.shared_sentencepiece_tokenizer(model), text.SentencepieceTokenizer(model=model)
    datasets = [tf.data.Dataset.from_tensors(["the cat sat"]).map(t.tokenize) for t in (ours, theirs)]
    expected = theirs.tokenize(["the cat sat"]).to_list()
    assert ours.tokenize(["the cat sat"]).to_list() == expected
    tf.random.set_seed(0)
    assert next(iter(datasets[0])).to_list() == ours.tokenize(["the cat sat"]).to_list() == expected
    with pytest.raises(tf.errors.NotFoundError, match="SentencepieceOp.* does not exist"):
        next(iter(datasets[1]))


def test_jax_metrics_update_is_keras_jax_trainers_own():
    """The JAX step of gradient accumulation updates metrics as Keras's JAX `train_step` does (its run on 2
    devices: tests/training/test_jax_strategy.py)."""
    import inspect

    from keras.src.backend.jax.trainer import JAXTrainer

    parameters = list(inspect.signature(JAXTrainer._update_metrics_variables).parameters)  # pylint: disable=protected-access
    assert parameters == ["self", "metrics_variables", "unscaled_loss", "x", "y", "y_pred", "sample_weight"]


def test_build_for_fit_builds_loss_and_metrics_from_a_spec_so_fit_pulls_no_batch_for_it():
    """Keras's `fit` pulls a batch for its symbolic build only while something is unbuilt (the JAX run: the
    fine-tuning resume in tests/training/test_jax_strategy.py)."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert not model._compile_loss.built and not model._compile_metrics.built  # pylint: disable=protected-access
    compat.build_for_fit(model, (keras.KerasTensor((None, 3)), keras.KerasTensor((None, 2))))
    assert model._compile_loss.built and model._compile_metrics.built and model.optimizer.built  # pylint: disable=protected-access
