"""Exporting changes nothing in TensorFlow for the rest of the process (docs/DESIGN.md, principle 3).

The layers trace as the patterns the converters need (`ops.expand_dims`, a batched matmul +
bias), so no export patches `tf.Tensor.__getitem__` or `tf.tensordot`, not even for a while.
"""

import tensorflow as tf

from keras_bert.export import export_onnx, export_saved_model, export_tflite

ORIGINALS = {"tf.Tensor.__getitem__": tf.Tensor.__getitem__, "tf.tensordot": tf.tensordot}


def current():
    return {"tf.Tensor.__getitem__": tf.Tensor.__getitem__, "tf.tensordot": tf.tensordot}


def test_every_export_function_leaves_tensorflow_unchanged(tiny_classifier, tokenizer, tmp_path):
    exports = {
        "saved_model": lambda: export_saved_model(tiny_classifier, tmp_path / "savedmodel" / "1",
                                                  tokenizer=tokenizer, seq_length=16, verify_export=False),
        "tflite": lambda: export_tflite(tiny_classifier, tmp_path / "tflite", tokenizer=tokenizer,
                                        seq_length=16, quantizations=("float32",), text=False,
                                        verify_export=False),
        "onnx": lambda: export_onnx(tiny_classifier, tmp_path / "onnx", optimize=False, verify_export=False),
    }
    for name, export in exports.items():
        export()
        changed = [k for k, v in current().items() if v is not ORIGINALS[k]]
        assert not changed, f"{name} export replaced {changed}"
