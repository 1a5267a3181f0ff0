"""OnnxGraph: lookups over a real ONNX graph, node edits, and the clean-up ONNX Runtime then runs."""

import numpy as np
import pytest

from keras_bert.export.onnx_graph import OnnxGraph, other_input, topological_order
from tests.export.helpers import gelu_erf_onnx, run_onnx


def test_lookups():
    g = OnnxGraph(gelu_erf_onnx())
    erf = g.producer["erf"]
    mul = g.parent(erf, 0, "Mul")
    assert mul.name == "mul" and g.parent(erf, 0, "Add") is None and g.parent(erf, 5) is None
    assert g.scalar("half_sqrt2") == pytest.approx(1 / np.sqrt(2))
    assert g.scalar("bias") is None and g.const("x") is None
    assert g.only_consumer("scaled") is erf and g.only_consumer("x") is None  # Mul and Neg read x
    assert other_input(mul, "x") == "half_sqrt2" and other_input(mul, "half_sqrt2") == "x"


def test_edits_then_finish_keep_a_runnable_graph():
    model = gelu_erf_onnx()
    x = np.array([[0.3, -2.0], [1.5, 0.0]], np.float32)
    before = run_onnx(model, x)
    g = OnnxGraph(model)
    g.producer["y"].output[0] = "y_half"  # the Add now feeds a new Mul that writes y
    g.add_node("Mul", ["y_half", g.add_initializer(np.array(2.0, np.float32), "two")], outputs=["y"])
    g.finish()
    assert [n.op_type for n in g.graph.node] == ["Mul", "Erf", "Add", "Mul"]  # Neg dropped, in order
    assert "unused" not in g.initializers
    np.testing.assert_allclose(run_onnx(model, x), 2 * before, atol=1e-6)


def test_topological_order_refuses_a_cycle():
    model = gelu_erf_onnx()
    assert [n.name for n in topological_order(model.graph)][:3] == ["mul", "erf", "neg"]
    model.graph.node[1].input[0] = "y"  # Mul now reads the Add's output: a cycle
    with pytest.raises(ValueError, match="ONNX graph has a cycle or missing inputs at"):
        topological_order(model.graph)
