"""export/onnx_ops.py: a graph holding an op tf2onnx copied from TensorFlow is refused, naming it."""

import onnx
import pytest
from onnx import TensorProto, helper

from keras_bert.export.onnx_ops import OnnxConversionError, check_ops


def _graph(*nodes):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    return helper.make_model(helper.make_graph(list(nodes), "g", [x], [y]))


def test_onnx_ops_pass():
    check_ops(_graph(helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Erf", ["h"], ["y"])))


def test_a_copied_tensorflow_op_is_named_with_its_count():
    model = _graph(helper.make_node("Erfc", ["x"], ["h"]), helper.make_node("Erfc", ["h"], ["y"]))
    with pytest.raises(OnnxConversionError, match=r"not ONNX ops: \{'Erfc': 2\}"):
        check_ops(model)


def test_contrib_ops_pass_only_when_allowed():
    model = _graph(helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft"))
    with pytest.raises(OnnxConversionError, match="com.microsoft.FastGelu"):
        check_ops(model)
    check_ops(model, allow_contrib=True)
    assert onnx.defs.has("Relu")
