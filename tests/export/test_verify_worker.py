"""The fresh-process worker: runs an ONNX file with keras, keras_bert and TensorFlow blocked."""

import numpy as np
import onnx

from keras_bert.export.verify import run_artifact
from tests.export.helpers import gelu_erf_onnx, run_onnx


def test_onnx_runs_without_keras_or_tensorflow(tmp_path):
    model = gelu_erf_onnx()
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    x = np.array([[0.5, -1.0], [2.0, 0.0]], np.float32)
    (outputs,), info = run_artifact("onnx", path, [("serve", {"x": x})])
    np.testing.assert_array_equal(outputs["y"], run_onnx(model, x))
    assert info["imported"] == []
