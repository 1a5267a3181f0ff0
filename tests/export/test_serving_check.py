"""TF Serving's load path: the C++ serving_check (LoadSavedModel, tag serve, signature by name,
Session::Run, tensorflow-text ops loaded) runs both signatures and matches Python."""

import glob
import hashlib
import os
import shutil
import subprocess

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text

from keras_bert.export import ServingModule
from keras_bert.export.verify_reference import text_to_ids

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIR = os.path.join(ROOT, "tools", "serving_check")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def serving_check():
    """The compiled program, cached by source + TensorFlow version (building takes ~1 min)."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("g++ is not installed (apt-get install -y g++); the C++ TF Serving load check needs it")
    digest = hashlib.sha256()
    for name in ("serving_check.cc", "build.sh"):
        with open(os.path.join(SOURCE_DIR, name), "rb") as f:
            digest.update(f.read())
    digest.update(tf.__version__.encode())
    cache = os.path.join(os.path.expanduser("~"), ".cache", "keras_bert", "serving_check", digest.hexdigest()[:16])
    binary = os.path.join(cache, "serving_check")
    if not os.path.exists(binary):
        os.makedirs(cache, exist_ok=True)
        proc = subprocess.run(["bash", os.path.join(SOURCE_DIR, "build.sh"), binary + ".tmp"],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr[-4000:]
        os.replace(binary + ".tmp", binary)
    return binary


def op_libraries():
    ops_dir = os.path.join(os.path.dirname(tensorflow_text.__file__), "python", "ops")
    return sorted(glob.glob(os.path.join(ops_dir, "*.so")))


def run(binary, export_dir, signature, inputs, tmp_path):
    out_dir = tmp_path / f"out_{signature}_{len(list(tmp_path.iterdir()))}"
    out_dir.mkdir()
    args = [binary, f"--saved_model={export_dir}", f"--signature={signature}", f"--output_dir={out_dir}"]
    args += [f"--op_library={lib}" for lib in op_libraries()]
    for name, value in inputs.items():
        path = out_dir / f"in_{name}.pb"
        path.write_bytes(tf.make_tensor_proto(value).SerializeToString())
        args.append(f"--input={name}={path}")
    proc = subprocess.run(args, capture_output=True, text=True, check=False,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    outputs = {}
    for path in out_dir.glob("*.pb"):
        if not path.name.startswith("in_"):
            proto = tf.make_tensor_proto(0)
            proto.ParseFromString(path.read_bytes())
            outputs[path.stem] = tf.make_ndarray(proto)
    return proc, outputs


def test_cpp_loader_runs_both_signatures_like_python(serving_check, classifier_export, tiny_classifier,
                                                     tokenizer, tmp_path):
    export_dir = classifier_export.path
    loaded = tf.saved_model.load(export_dir)
    texts = np.array([b"A fine, moving film.", b"", b"the plot " * 300])
    pairs = np.array([b"It was not.", b"An empty first text.", b"short"])

    # serving_default without text_b: the SignatureDef default fills it in, as TF Serving does.
    proc, cpp = run(serving_check, export_dir, "serving_default", {"text_a": texts}, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = loaded.signatures["serving_default"](text_a=tf.constant(texts), text_b=tf.constant([], tf.string))
    assert set(cpp) == {"logits", "probabilities"}
    for name in cpp:
        np.testing.assert_allclose(cpp[name], python[name].numpy(), atol=1e-6)

    proc, cpp = run(serving_check, export_dir, "serving_default", {"text_a": texts, "text_b": pairs}, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = loaded.signatures["serving_default"](text_a=tf.constant(texts), text_b=tf.constant(pairs))
    np.testing.assert_allclose(cpp["logits"], python["logits"].numpy(), atol=1e-6)

    ids = text_to_ids(ServingModule(tiny_classifier, tokenizer, seq_length=32).serving, [t.decode() for t in texts])
    proc, cpp = run(serving_check, export_dir, "serve_ids", ids, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = loaded.signatures["serve_ids"](**{k: tf.constant(v) for k, v in ids.items()})
    np.testing.assert_allclose(cpp["logits"], python["logits"].numpy(), atol=1e-6)
    assert "logits float [3,3]" in proc.stdout


def test_cpp_loader_reports_unknown_signature_and_bad_dtype(serving_check, classifier_export, tmp_path):
    proc, _ = run(serving_check, classifier_export.path, "predict", {}, tmp_path)
    assert proc.returncode == 2
    assert "signature predict not found; the SavedModel has:" in proc.stderr and "serve_ids" in proc.stderr
    floats = {name: np.ones((1, 4), np.float32) for name in ("input_word_ids", "input_mask", "input_type_ids")}
    proc, _ = run(serving_check, classifier_export.path, "serve_ids", floats, tmp_path)
    assert proc.returncode == 1 and "int32" in proc.stderr
