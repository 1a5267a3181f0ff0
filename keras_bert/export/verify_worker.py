"""Runs one exported artifact in a fresh process, without keras or keras_bert.

SavedModel and ONNX run with `keras` and `keras_bert` blocked from importing, so a
SavedModel that needed Keras objects would fail to load here. `tensorflow_text`'s Python
package imports keras (its Keras layers), so for SavedModels the worker loads
tensorflow-text's op kernels with `tf.load_op_library` instead, which is all a served
model needs (TF Serving links the same kernels). TFLite needs the Python package for its
op registrar, so keras is not blocked there.

`verify.run_artifact` executes this file's source with `python -c` (so neither the
package nor this folder is on the import path: this folder's `onnx.py` must not
shadow the real `onnx`) and passes one JSON job as argv[1]:
`{"format": "savedmodel"|"tflite"|"onnx", "path": ..., "calls": [{"signature": ...,
"inputs": "in.npz", "outputs": "out.npz", optional "path"}, ...]}`. Each artifact is
loaded once; each call's outputs go to its `outputs` file, and a JSON line saying whether keras or
keras_bert got imported goes to stdout.
"""

import glob
import importlib.util
import json
import os
import sys

import numpy as np


def _block(*names):
    for name in names:
        sys.modules[name] = None  # any import of it now raises ImportError


def _saved_model_runner(path):
    _block("keras", "keras_bert", "tf_keras")
    import tensorflow as tf

    package_dir = importlib.util.find_spec("tensorflow_text").submodule_search_locations[0]
    for library in sorted(glob.glob(os.path.join(package_dir, "python", "ops", "*.so"))):  # tensorflow-text's kernels
        tf.load_op_library(library)
    loaded = tf.saved_model.load(path)

    def run(signature, inputs):
        feeds = {name: tf.constant(value) for name, value in inputs.items()}
        function = loaded.signatures[signature]
        if "text_b" in function.structured_input_signature[1] and "text_b" not in feeds:
            feeds["text_b"] = tf.constant([], tf.string)  # the signature's default, explicit in Python
        return {name: value.numpy() for name, value in function(**feeds).items()}

    return run


def _tflite_runner(path):
    import tensorflow_text
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    interpreter = InterpreterWithCustomOps(
        model_path=path, custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)

    def run(signature, inputs):
        runner = interpreter.get_signature_runner(signature)
        feeds = {name: (value.astype(object) if value.dtype.kind == "S" else value)
                 for name, value in inputs.items()}
        return {name: np.array(value) for name, value in runner(**feeds).items()}

    return run


def _onnx_runner(path):
    _block("keras", "keras_bert", "tf_keras", "tensorflow")
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # onnxruntime-extensions' custom ops (the raw-text model's BertTokenizer), found without
    # importing its package (which imports torch and transformers).
    spec = importlib.util.find_spec("onnxruntime_extensions")
    for library in glob.glob(os.path.join(spec.submodule_search_locations[0], "_extensions_pydll*.so")) if spec else []:
        options.register_custom_ops_library(library)
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    # The graph declares only the inputs the model reads (a ModernBERT has no token types).
    declared = {i.name for i in session.get_inputs()}

    def run(signature, inputs):
        feeds = {name: (np.char.decode(value, "utf-8").astype(object) if value.dtype.kind == "S" else value)
                 for name, value in inputs.items() if name in declared}
        return dict(zip(names, session.run(names, feeds)))

    return run


def main(argv):
    job = json.loads(argv[1])
    make_runner = {"savedmodel": _saved_model_runner, "tflite": _tflite_runner, "onnx": _onnx_runner}
    runners = {}
    for call in job["calls"]:
        path = call.get("path", job["path"])
        if path not in runners:
            runners[path] = make_runner[job["format"]](path)
        with np.load(call["inputs"]) as data:
            inputs = {name: data[name] for name in data.files}
        np.savez(call["outputs"], **runners[path](call["signature"], inputs))
    imported = [m for m in ("keras", "keras_bert", "tensorflow", "tensorflow_text")
                if sys.modules.get(m) is not None]
    print(json.dumps({"imported": imported}))


if __name__ == "__main__":
    main(sys.argv)
