"""rewrite_for_ort_fusion on a hand-built graph: the GELU rewrite keeps ONNX Runtime's numbers."""

import numpy as np

from keras_bert.export.onnx_rewrites import REWRITES, rewrite_for_ort_fusion
from tests.export.helpers import gelu_erf_onnx, run_onnx


def test_gelu_mul_becomes_div_with_the_same_outputs():
    model = gelu_erf_onnx()
    x = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float32)
    before = run_onnx(model, x)
    counts = rewrite_for_ort_fusion(model)
    assert counts == dict.fromkeys(REWRITES, 0) | {"gelu_div": 1}
    assert [n.op_type for n in model.graph.node] == ["Div", "Erf", "Add"]
    np.testing.assert_allclose(run_onnx(model, x), before, atol=1e-6)


def test_passes_not_asked_for_leave_the_graph_alone():
    model = gelu_erf_onnx()
    assert rewrite_for_ort_fusion(model, ("layer_norm",)) == {"layer_norm": 0}
    assert "Mul" in [n.op_type for n in model.graph.node]
