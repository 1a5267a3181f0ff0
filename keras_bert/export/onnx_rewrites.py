"""ONNX graph rewrites that turn tf2onnx's BERT graph into the patterns ONNX Runtime fuses.

`onnxruntime.transformers.optimizer.optimize_model(model_type="bert")` fuses
Attention, SkipLayerNormalization, (Bias)Gelu and EmbedLayerNormalization by matching
the subgraphs PyTorch's exporter writes. tf2onnx writes the same math in other shapes;
each pass below rewrites one of them into the matched form without changing the
numbers beyond float rounding (the export's parity check covers it).

Measured on MiniLM-L6 (6 layers; tools/bench_onnx_fusion.py, onnxruntime 1.32, tf2onnx 1.17).
ORT's own TF-aware optimizers do not replace these passes: on tf2onnx's graph without
them, `model_type="bert"`, `"bert_tf"` and `"bert_keras"` each fuse nothing (6 Softmax,
6 Erf, 13 LayerNorm subgraphs left); with them, `"bert"` fuses 6 Attention, 12
SkipLayerNormalization, 6 BiasGelu, 1 EmbedLayerNormalization, and `"bert_tf"` /
`"bert_keras"` only the 12 SkipLayerNormalization and 6 BiasGelu. Each pass is needed:
the fused ops lost when only that pass is left out are given with it. Outputs match Keras
within 2.6e-6 to 3.6e-6 in every variant. Latency differences between single passes hide
in a shared CPU's noise (docs/BENCHMARKS.md, onnx_fusion), so the fused-op counts decide.

1. `gather_indices`: Keras `take` wraps negative ids (`where(ids < 0, ids + n, ids)`);
   ONNX `Gather` already does, so the Gather reads the raw ids.
   Without it: EmbedLayerNormalization 1 -> 0.
2. `position_gather`: `table[:seq][None]` (Slice + Unsqueeze) becomes
   `Gather(table, arange[1, max][:, :seq])`, BERT's position-id pattern.
   Without it: EmbedLayerNormalization 1 -> 0 (the embedding sum fuses as a 13th SkipLayerNorm).
3. `layer_norm`: Keras LayerNormalization on TF (`tf.nn.moments`, exported as
   GlobalAveragePool/ReduceMean + Sub + Mul + ... + Reciprocal) becomes one ONNX
   `LayerNormalization` (opset 17). Without it: Attention 6 -> 0, SkipLayerNormalization 12 -> 0.
4. `mask_unsqueeze_first`: `(1 - cast(mask)) * -10000` followed by two Unsqueeze becomes
   Unsqueeze, Unsqueeze, Cast, Sub, Mul (the mask path the fusion matches).
   Without it: Attention 6 -> 0.
5. `scale_scores`: `softmax((q * c) @ k^T + mask)` becomes `softmax((q @ k^T) / (1 / c) + mask)`.
   Without it: Attention 6 -> 0.
6. `gelu_div`: `erf(x * 0.7071...)` becomes `erf(x / 1.4142...)`. Without it: BiasGelu 6 -> 0.
"""

import numpy as np
import onnx

from keras_bert.export.onnx_graph import OnnxGraph, other_input


def _gather_indices(g, node):
    add = g.parent(node, 1, "Add")
    raw = _negative_index_fix_source(g, add) if add is not None else None
    if raw is None:
        return False
    node.input[1] = raw
    return True


def _negative_index_fix_source(g, add):
    """The graph input `ids` if `add` computes Keras's where(ids < 0, ids + n, ids), else None."""
    seen, frontier, sources, op_types = set(), [add], set(), set()
    while frontier:
        node = frontier.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        op_types.add(node.op_type)
        if node.op_type not in ("Add", "Mul", "Cast", "Less", "Not"):
            return None
        if len(seen) > 12:
            return None
        for i in node.input:
            if i in g.inputs:
                sources.add(i)
            elif g.const(i) is None:
                parent = g.producer.get(i)
                if parent is None:
                    return None
                frontier.append(parent)
    if len(sources) != 1 or "Less" not in op_types:
        return None
    return sources.pop()


def _position_gather(g, unsqueeze):
    if "input_word_ids" not in g.inputs:
        return False
    axes = g.const(unsqueeze.input[1])
    if axes is None or list(axes.reshape(-1)) != [0]:
        return False
    slice_node = g.parent(unsqueeze, 0, "Slice")
    if slice_node is None:
        return False
    table = g.const(slice_node.input[0])
    starts = g.const(slice_node.input[1])
    axes = g.const(slice_node.input[3]) if len(slice_node.input) > 3 else np.array([0])
    steps = g.const(slice_node.input[4]) if len(slice_node.input) > 4 else np.array([1])
    if (table is None or table.ndim != 2 or starts is None or list(starts.reshape(-1)) != [0]
            or axes is None or list(axes.reshape(-1)) != [0]
            or steps is None or list(steps.reshape(-1)) != [1]):
        return False
    positions = g.add_initializer(np.arange(table.shape[0], dtype=np.int64)[None, :], "position_ids")
    shape = g.add_node("Shape", ["input_word_ids"])
    seq = g.add_node("Gather", [shape.output[0], g.add_initializer(np.int64(1), "one")], axis=0)
    seq = g.add_node("Unsqueeze", [seq.output[0], g.add_initializer(np.array([0], np.int64), "axes")])
    position_ids = g.add_node("Slice", [
        positions, g.add_initializer(np.array([0], np.int64), "starts"), seq.output[0],
        g.add_initializer(np.array([1], np.int64), "axes"),
        g.add_initializer(np.array([1], np.int64), "steps")])
    g.add_node("Gather", [slice_node.input[0], position_ids.output[0]], outputs=[unsqueeze.output[0]], axis=0)
    g.graph.node.remove(unsqueeze)
    return True


def _is_last_axis_mean(g, node):
    if node is None:
        return False
    if node.op_type == "GlobalAveragePool":
        return True  # on the rank-3 hidden states: the mean over the last axis
    if node.op_type == "ReduceMean":
        axes = g.attribute(node, "axes")
        return axes is not None and list(axes) in ([-1],) and g.attribute(node, "keepdims", 1) == 1
    return False


def _as_vector(g, name):
    """A 1-D initializer for a constant like gamma `[1, 1, H]` (fused LayerNorm kernels want `[H]`)."""
    value = g.const(name)
    if value is None or value.size != value.shape[-1]:
        return None
    return name if value.ndim == 1 else g.add_initializer(value.reshape(-1), "layer_norm_param")


def _layer_norm(g, mean):
    if not _is_last_axis_mean(g, mean):
        return False
    x = mean.input[0]
    users = g.consumers.get(mean.output[0], [])
    sub = next((u for u in users if u is not None and u.op_type == "Sub" and u.input == [x, mean.output[0]]), None)
    neg = next((u for u in users if u is not None and u.op_type == "Neg"), None)
    if sub is None or neg is None:
        return False
    square = g.only_consumer(sub.output[0])
    if square is None or square.op_type != "Mul" or list(square.input) != [sub.output[0]] * 2:
        return False
    variance = g.only_consumer(square.output[0])
    if not _is_last_axis_mean(g, variance):
        return False
    add_eps = g.only_consumer(variance.output[0])
    if add_eps is None or add_eps.op_type != "Add":
        return False
    epsilon = g.scalar(other_input(add_eps, variance.output[0]))
    sqrt = g.only_consumer(add_eps.output[0])
    reciprocal = g.only_consumer(sqrt.output[0]) if sqrt is not None and sqrt.op_type == "Sqrt" else None
    if epsilon is None or reciprocal is None or reciprocal.op_type != "Reciprocal":
        return False
    scale = g.only_consumer(reciprocal.output[0])
    if scale is None or scale.op_type != "Mul":
        return False
    gamma = other_input(scale, reciprocal.output[0])
    scaled = [u for u in g.consumers.get(scale.output[0], []) if u is not None and u.op_type == "Mul"]
    times_x = next((u for u in scaled if x in u.input), None)
    times_neg = next((u for u in scaled if neg.output[0] in u.input), None)
    if times_x is None or times_neg is None:
        return False
    add_beta = g.only_consumer(times_neg.output[0])
    if add_beta is None or add_beta.op_type != "Add":
        return False
    beta = other_input(add_beta, times_neg.output[0])
    final = g.only_consumer(times_x.output[0])
    if final is None or final.op_type != "Add" or add_beta.output[0] not in final.input:
        return False
    gamma, beta = _as_vector(g, gamma), _as_vector(g, beta)
    if gamma is None or beta is None:
        return False
    g.add_node("LayerNormalization", [x, gamma, beta], outputs=[final.output[0]], axis=-1, epsilon=epsilon)
    g.graph.node.remove(final)
    return True


def _mask_unsqueeze_first(g, outer):
    inner = g.parent(outer, 0, "Unsqueeze")
    mul = g.parent(inner, 0, "Mul") if inner is not None else None
    if mul is None:
        return False
    sub = next((g.producer.get(i) for i in mul.input if g.producer.get(i) is not None
                and g.producer[i].op_type == "Sub"), None)
    if sub is None:
        return False
    bias = g.scalar(other_input(mul, sub.output[0]))
    one = g.scalar(sub.input[0])
    cast = g.parent(sub, 1, "Cast")
    if bias is None or bias >= 0 or one != 1.0 or cast is None:
        return False
    first = g.add_node("Unsqueeze", [cast.input[0], inner.input[1]])
    second = g.add_node("Unsqueeze", [first.output[0], outer.input[1]])
    new_cast = g.add_node("Cast", [second.output[0]], to=g.attribute(cast, "to"))
    new_sub = g.add_node("Sub", [sub.input[0], new_cast.output[0]])
    g.add_node("Mul", [new_sub.output[0], other_input(mul, sub.output[0])], outputs=[outer.output[0]])
    g.graph.node.remove(outer)
    return True


def _scale_scores(g, matmul):
    softmax_path = g.only_consumer(matmul.output[0])
    if softmax_path is None or softmax_path.op_type != "Add":
        return False
    if not any(u is not None and u.op_type == "Softmax" for u in g.consumers.get(softmax_path.output[0], [])):
        return False
    # Reshape -> Mul(c) -> Transpose -> MatMul, or Transpose -> Mul(c) -> MatMul
    scaled = g.parent(matmul, 0, "Transpose") or matmul
    scale_node = g.parent(scaled, 0, "Mul")
    if scale_node is None:
        return False
    constant = next((i for i in scale_node.input if g.scalar(i) is not None), None)
    if constant is None or g.only_consumer(scale_node.output[0]) is None:
        return False
    scaled.input[0] = other_input(scale_node, constant)
    scores = matmul.output[0]
    matmul.output[0] = g.name("unscaled_scores") + ":0"
    # Div by sqrt(head_size), as PyTorch's BERT: with Mul, the fusion's parent search
    # finds the scale's Mul where it looks for the mask's Mul and gives up.
    divisor = g.add_initializer(np.array(1.0 / g.scalar(constant), np.float32), "sqrt_head_size")
    g.add_node("Div", [matmul.output[0], divisor], outputs=[scores])
    g.graph.node.remove(scale_node)
    return True


def _gelu_div(g, erf):
    mul = g.parent(erf, 0, "Mul")
    if mul is None or g.only_consumer(mul.output[0]) is None:
        return False
    constant = next((i for i in mul.input if g.scalar(i) is not None), None)
    if constant is None or abs(g.scalar(constant) - 1 / np.sqrt(2)) > 1e-6:
        return False
    sqrt2 = g.add_initializer(np.array(np.sqrt(2.0), np.float32), "sqrt2")
    g.add_node("Div", [other_input(mul, constant), sqrt2], outputs=[mul.output[0]])
    g.graph.node.remove(mul)
    return True


# name: (the op types each pass starts from, the per-node rewrite: True if it rewrote)
PASSES = {
    "gather_indices": (("Gather",), _gather_indices),
    "position_gather": (("Unsqueeze",), _position_gather),
    "layer_norm": (("GlobalAveragePool", "ReduceMean"), _layer_norm),
    "mask_unsqueeze_first": (("Unsqueeze",), _mask_unsqueeze_first),
    "scale_scores": (("MatMul",), _scale_scores),
    "gelu_div": (("Erf",), _gelu_div),
}
REWRITES = tuple(PASSES)


def rewrite_for_ort_fusion(model, passes=REWRITES):
    """Applies `passes` (in their fixed order) in place; returns `{pass name: number of rewrites}`.

    Args:
        model: an `onnx.ModelProto` from tf2onnx (opset >= 17 for LayerNormalization).
        passes: names from `REWRITES` (default: all; a subset measures what each one buys).

    Example:
        >>> counts = rewrite_for_ort_fusion(onnx.load("model.onnx"))
    """
    unknown = sorted(set(passes) - set(PASSES))
    if unknown:
        raise ValueError(f"Unknown ONNX rewrite(s) {unknown}; choose from {REWRITES}.")
    g = OnnxGraph(model)
    counts = {}
    for name, (op_types, rewrite) in PASSES.items():
        if name in passes:
            counts[name] = sum(bool(rewrite(g, node)) for node in list(g.graph.node) if node.op_type in op_types)
            g.finish()
    onnx.checker.check_model(model)
    return counts
