"""Every private TensorFlow / tf2onnx API keras_bert relies on, each with its reason.

One place to look when an upgrade breaks: `tests/test_compat.py` pins each touchpoint to
`VERIFIED` (the versions it was checked on) and asserts the private name still exists and
behaves as relied on. Importing this module loads no TensorFlow (`layers/` and `models/`
stay TensorFlow-free); the TF and tf2onnx imports happen inside the functions that use them.
"""

import contextlib
import glob
import hashlib
import importlib.util
import os

# The versions each touchpoint below was checked on (tests/test_compat.py fails on others).
VERIFIED = {"tensorflow": "2.21", "keras": "3.15", "tf2onnx": "1.17", "tensorflow_text": "2.21"}


def in_multi_worker_mode(strategy):
    """True when `strategy` spans several worker processes.

    Private: `strategy.extended._in_multi_worker_mode()`. TF has no public equivalent;
    `cluster_resolver` is also set for a one-worker MultiWorkerMirroredStrategy and for TPUs.
    """
    probe = getattr(strategy.extended, "_in_multi_worker_mode", None)
    return bool(probe()) if probe is not None else False


def in_xla_context():
    """True while tracing inside an XLA cluster (`jit_compile=True`) on TensorFlow.

    Private: `tensorflow.python.ops.control_flow_util.GraphOrParentsInXlaContext`, what TF's
    own gradient code uses to detect XLA; no public API tells a layer it is being compiled.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from tensorflow.python.ops import control_flow_util  # pylint: disable=import-outside-toplevel

    return bool(control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()))


def xla_threefry_keep_mask(inputs, rate, seed_generator):
    """FastDropout's keep-mask, drawn with threefry while tracing for XLA on TensorFlow, else None
    (and then no seed is drawn). Call only on the TensorFlow backend.

    Here, not in `layers/`, because it needs TensorFlow and `in_xla_context` (the measured reason
    is in `layers/fast_dropout.py`); `layers/` import only keras.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel  # loaded by keras already

    if not in_xla_context():
        return None
    seed = tf.cast(tf.math.floormod(seed_generator.next(), 2**31 - 1), "int32")  # XLA wants int32
    return tf.random.stateless_uniform(tf.shape(inputs), seed, alg="threefry") >= rate


def shared_sentencepiece_tokenizer(model):
    """tf-text's `SentencepieceTokenizer` (int32 ids) whose model resource outlives TF's eager kernel cache.

    Measured: tf-text creates the model as a resource private to the eager `SentencepieceOp` kernel
    (its TODO b/318839908), so anything that clears the kernel cache deletes it:
    `tf.random.set_seed` (`keras.utils.set_random_seed`, what every keras_bert run starts with) and
    `keras.utils.clear_session`. A dataset or function that captured the handle then fails with
    "Resource localhost/_0_SentencepieceOp/... does not exist". Named by the model's SHA-1
    (`shared_name`), the resource is no kernel's: a cleared cache leaves it, a SavedModel recreates
    it under that name, and the same model bytes share one (kept until the process ends, as the
    kernel kept it). Private: tf-text's
    `_SentencepieceModelResource`, its op module `gen_sentencepiece_tokenizer`, and the tokenizer's
    `_model_resource`, which every method reads the handle from.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text as text  # pylint: disable=import-outside-toplevel
    from tensorflow_text.python.ops import sentencepiece_tokenizer as ops  # pylint: disable=import-outside-toplevel

    class SharedModelResource(ops._SentencepieceModelResource):  # pylint: disable=protected-access
        def _create_resource(self):
            return ops.gen_sentencepiece_tokenizer.sentencepiece_op(model=self._model, shared_name=self._name)

    with tf.Graph().as_default():  # its own kernel-private resource: an op in a throwaway graph, never run
        tokenizer = text.SentencepieceTokenizer(model=model, out_type=tf.int32)
    name = "keras_bert_sentencepiece_" + hashlib.sha1(model).hexdigest()
    tokenizer._model_resource = SharedModelResource(model, name)  # pylint: disable=protected-access
    return tokenizer


@contextlib.contextmanager
def model_without_strategy(model):
    """Unsets a Keras model's own distribution strategy for the `with` block, then restores it.

    Private: `keras.Model._distribute_strategy`. `training/run_loop.fit_from` needs it so that
    Keras 3.15's `fit` skips its symbolic build, whose throwaway distributed iterator crashes
    TF 2.21 now and then, and whose `strategy.reduce` of a nested batch fails under
    MultiWorkerMirroredStrategy (keras-team/keras#20585).
    """
    saved = model._distribute_strategy  # pylint: disable=protected-access
    model._distribute_strategy = None  # pylint: disable=protected-access
    try:
        yield model
    finally:
        model._distribute_strategy = saved  # pylint: disable=protected-access


def compute_training_loss(model, x, y, y_pred, sample_weight):
    """The loss Keras's TensorFlow `train_step` computes (scaled for tf.distribute).

    Private: `keras.Model._compute_loss`. Gradient accumulation
    (`training/gradient_accumulation.py`) runs Keras's step once per micro-batch; the public
    `compute_loss` skips the per-replica scaling that `_compute_loss` applies.
    """
    return model._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,  # pylint: disable=protected-access
                               training=True)


def track_loss(model, loss, batch_size):
    """Adds a step's loss to the `loss` metric `fit` reports, as Keras's `train_step` does.

    Private: `keras.Model._loss_tracker`; no public API feeds the reported loss.
    """
    model._loss_tracker.update_state(loss, sample_weight=batch_size)  # pylint: disable=protected-access


def jax_metrics_update(model, metrics_variables, loss, x, y, y_pred, sample_weight):
    """`(logs, new metrics variables)` after one step's loss and metrics, as Keras's JAX `train_step`
    updates them (stateless, inside its jitted step).

    Private: `keras.src.backend.jax.trainer.JAXTrainer._update_metrics_variables`; gradient
    accumulation (`training/gradient_accumulation.py`) runs JAX's step once per micro-batch.
    """
    return model._update_metrics_variables(metrics_variables, loss, x, y, y_pred, sample_weight)  # pylint: disable=protected-access


def build_for_fit(model, batch):
    """Builds a compiled model's loss and metrics (and optimizer) from `batch`, a structure of
    `keras.KerasTensor`s shaped like one `(x, y[, sample_weight])` batch, as `fit` would from real data.

    Private: `keras.Model._symbolic_build(data_batch=)`. Keras 3.15's JAX `fit` otherwise builds them
    from a batch pulled off a throwaway iterator of the training data. A seeded `tf.data` shuffle that
    reshuffles draws its seeds from one generator shared by every iterator of the dataset, and that
    iterator prefetches: how far it read (a resumed run's `skip` reads through an epoch) decided the
    order the training iterator got. Measured: a JAX fine-tuning run resumed after SIGKILL trained
    epoch 2 on other batches and ended 9.6e-4 from the uninterrupted run; built here, 0.
    """
    model._symbolic_build(data_batch=batch)  # pylint: disable=protected-access


@contextlib.contextmanager
def tf2onnx_bounded_memory():
    """Keeps tf2onnx's optimizer from growing memory by the model's size on every pass.

    Measured: tf2onnx rewrites each node's NodeProto after every optimizer pass (~20 passes),
    copying every constant into it again; protobuf's upb backend frees a replaced sub-message
    only with its parent, so memory grew by the whole model per pass (MiniLM-L6: 2 -> 7 GB;
    BERT-base: killed at 17 GB). A fresh NodeProto per update lets the old copy go.
    Private: `tf2onnx.graph.Node.update_proto` and `Node._op`, patched only for the `with`
    block (the ONNX export's conversion call) and restored after it. Also sets
    `TF2ONNX_CATCH_ERRORS=false` for the block: tf2onnx's default deep-copies the graph before
    each pass and silently skips a pass that raises; off, a failing pass fails the export.
    """
    import onnx  # pylint: disable=import-outside-toplevel
    from tf2onnx import graph as tf2onnx_graph  # pylint: disable=import-outside-toplevel

    original = tf2onnx_graph.Node.update_proto

    def update_proto(self, external_tensor_storage=None):
        old = self._op  # pylint: disable=protected-access
        self._op = onnx.NodeProto(name=old.name, op_type=old.op_type, domain=old.domain,  # pylint: disable=protected-access
                                  doc_string=old.doc_string)
        return original(self, external_tensor_storage)

    saved_env = os.environ.get("TF2ONNX_CATCH_ERRORS")
    os.environ["TF2ONNX_CATCH_ERRORS"] = "false"
    tf2onnx_graph.Node.update_proto = update_proto
    try:
        yield
    finally:
        tf2onnx_graph.Node.update_proto = original
        if saved_env is None:
            os.environ.pop("TF2ONNX_CATCH_ERRORS", None)
        else:
            os.environ["TF2ONNX_CATCH_ERRORS"] = saved_env


def ortx_library():
    """Path of onnxruntime-extensions' custom-op library, or a one-line error saying what to install.

    Private: the `_extensions_pydll*.so` file name inside the package. The public
    `onnxruntime_extensions.get_library_path()` imports the package, which imports torch and
    transformers (seconds, and a raw-text ONNX user needs neither).
    """
    spec = importlib.util.find_spec("onnxruntime_extensions")
    found = glob.glob(os.path.join(spec.submodule_search_locations[0], "_extensions_pydll*.so")) if spec else []
    if not found:
        raise ImportError("The raw-text ONNX model needs onnxruntime-extensions: pip install "
                          "onnxruntime-extensions (the keras_bert[export] extra).")
    return found[0]
