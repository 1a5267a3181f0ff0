"""ONNX graph rewrites that turn tf2onnx's BERT graph into the patterns ONNX Runtime fuses.

`onnxruntime.transformers.optimizer.optimize_model(model_type="bert")` fuses
Attention, SkipLayerNormalization, (Bias)Gelu and EmbedLayerNormalization by matching
the subgraphs PyTorch's exporter writes. tf2onnx writes the same math in other shapes;
each pass below rewrites one of them into the matched form without changing the
numbers beyond float rounding (the export's parity check covers it):

1. `gather_indices`: Keras `take` wraps negative ids (`where(ids < 0, ids + n, ids)`);
   ONNX `Gather` already does, so the Gather reads the raw ids.
2. `position_gather`: `table[:seq][None]` (Slice + Unsqueeze) becomes
   `Gather(table, arange[1, max][:, :seq])`, BERT's position-id pattern.
3. `layer_norm`: Keras LayerNormalization on TF (`tf.nn.moments`, exported as
   GlobalAveragePool/ReduceMean + Sub + Mul + ... + Reciprocal) becomes one ONNX
   `LayerNormalization` (opset 17).
4. `mask_unsqueeze_first`: `(1 - cast(mask)) * -10000` followed by two Unsqueeze becomes
   Unsqueeze, Unsqueeze, Cast, Sub, Mul (the mask path the fusion matches).
5. `scale_scores`: `softmax((q * c) @ k^T + mask)` becomes `softmax((q @ k^T) / (1 / c) + mask)`.
6. `gelu_div`: `erf(x * 0.7071...)` becomes `erf(x / 1.4142...)`.
"""

import collections

import numpy as np
import onnx
from onnx import helper, numpy_helper

_FLOAT_TYPES = (onnx.TensorProto.FLOAT,)


class _Graph:
    """Producer / consumer / constant lookups over an ONNX graph, with node edits."""

    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self._counter = 0
        self.refresh()

    def refresh(self):
        self.producer = {o: n for n in self.graph.node for o in n.output}
        self.consumers = collections.defaultdict(list)
        for n in self.graph.node:
            for i in dict.fromkeys(n.input):  # a node reading one tensor twice counts once
                self.consumers[i].append(n)
        for o in self.graph.output:
            self.consumers[o.name].append(None)  # graph outputs count as consumers
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.inputs = {i.name: i for i in self.graph.input}

    def const(self, name):
        """numpy value of an initializer or Constant node output, else None."""
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        node = self.producer.get(name)
        if node is not None and node.op_type == "Constant":
            for attribute in node.attribute:
                if attribute.name == "value":
                    return numpy_helper.to_array(attribute.t)
        return None

    def scalar(self, name):
        value = self.const(name)
        if value is None or value.size != 1:
            return None
        return float(value.reshape(()))

    def parent(self, node, index, op_type=None):
        if node is None or index >= len(node.input):
            return None
        parent = self.producer.get(node.input[index])
        if parent is None or (op_type is not None and parent.op_type != op_type):
            return None
        return parent

    def only_consumer(self, name):
        users = self.consumers.get(name, [])
        return users[0] if len(users) == 1 else None

    def name(self, prefix):
        self._counter += 1
        return f"keras_bert_rewrite/{prefix}_{self._counter}"

    def add_initializer(self, value, prefix):
        name = self.name(prefix)
        self.graph.initializer.append(numpy_helper.from_array(np.asarray(value), name))
        self.initializers[name] = self.graph.initializer[-1]
        return name

    def add_node(self, op_type, inputs, outputs=None, **attributes):
        name = self.name(op_type)
        outputs = outputs or [name + ":0"]
        node = helper.make_node(op_type, inputs, outputs, name=name, **attributes)
        self.graph.node.append(node)
        for o in outputs:
            self.producer[o] = node
        return node

    def attribute(self, node, name, default=None):
        for attribute in node.attribute:
            if attribute.name == name:
                return helper.get_attribute_value(attribute)
        return default

    def finish(self):
        """Drops dead nodes and restores topological order."""
        needed = {o.name for o in self.graph.output}
        keep = []
        for node in reversed(_topological(self.graph)):
            if any(o in needed for o in node.output):
                keep.append(node)
                needed.update(node.input)
        keep.reverse()
        del self.graph.node[:]
        self.graph.node.extend(keep)
        used = {i for n in keep for i in n.input}
        unused = [t for t in self.graph.initializer if t.name not in used
                  and t.name not in {o.name for o in self.graph.output}]
        for t in unused:
            self.graph.initializer.remove(t)
        self.refresh()


def _topological(graph):
    available = {i.name for i in graph.input} | {t.name for t in graph.initializer} | {""}
    pending, ordered = list(graph.node), []
    while pending:
        progress = []
        for node in pending:
            if all(i in available for i in node.input):
                ordered.append(node)
                available.update(node.output)
            else:
                progress.append(node)
        if len(progress) == len(pending):
            raise ValueError(f"ONNX graph has a cycle or missing inputs at {progress[0].name}")
        pending = progress
    return ordered


def _other_input(node, name):
    return node.input[1] if node.input[0] == name else node.input[0]


# ----- passes

def _gather_indices(g):
    count = 0
    for node in list(g.graph.node):
        if node.op_type != "Gather":
            continue
        add = g.parent(node, 1, "Add")
        if add is None:
            continue
        raw = _negative_index_fix_source(g, add)
        if raw is not None:
            node.input[1] = raw
            count += 1
    return count


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


def _position_gather(g):
    count = 0
    ids = "input_word_ids" if "input_word_ids" in g.inputs else None
    if ids is None:
        return 0
    for unsqueeze in list(g.graph.node):
        if unsqueeze.op_type != "Unsqueeze" or g.const(unsqueeze.input[1]) is None:
            continue
        if list(g.const(unsqueeze.input[1]).reshape(-1)) != [0]:
            continue
        slice_node = g.parent(unsqueeze, 0, "Slice")
        if slice_node is None:
            continue
        table = g.const(slice_node.input[0])
        starts = g.const(slice_node.input[1])
        axes = g.const(slice_node.input[3]) if len(slice_node.input) > 3 else np.array([0])
        steps = g.const(slice_node.input[4]) if len(slice_node.input) > 4 else np.array([1])
        if (table is None or table.ndim != 2 or starts is None or list(starts.reshape(-1)) != [0]
                or axes is None or list(axes.reshape(-1)) != [0]
                or steps is None or list(steps.reshape(-1)) != [1]):
            continue
        positions = g.add_initializer(np.arange(table.shape[0], dtype=np.int64)[None, :], "position_ids")
        shape = g.add_node("Shape", [ids])
        seq = g.add_node("Gather", [shape.output[0], g.add_initializer(np.int64(1), "one")], axis=0)
        seq = g.add_node("Unsqueeze", [seq.output[0], g.add_initializer(np.array([0], np.int64), "axes")])
        position_ids = g.add_node("Slice", [
            positions, g.add_initializer(np.array([0], np.int64), "starts"), seq.output[0],
            g.add_initializer(np.array([1], np.int64), "axes"),
            g.add_initializer(np.array([1], np.int64), "steps")])
        g.add_node("Gather", [slice_node.input[0], position_ids.output[0]], outputs=[unsqueeze.output[0]], axis=0)
        g.graph.node.remove(unsqueeze)
        count += 1
    g.refresh()
    return count


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


def _layer_norm(g):
    count = 0
    for mean in list(g.graph.node):
        if not _is_last_axis_mean(g, mean):
            continue
        x = mean.input[0]
        users = g.consumers.get(mean.output[0], [])
        sub = next((u for u in users if u is not None and u.op_type == "Sub" and u.input == [x, mean.output[0]]), None)
        neg = next((u for u in users if u is not None and u.op_type == "Neg"), None)
        if sub is None or neg is None:
            continue
        square = g.only_consumer(sub.output[0])
        if square is None or square.op_type != "Mul" or list(square.input) != [sub.output[0]] * 2:
            continue
        variance = g.only_consumer(square.output[0])
        if not _is_last_axis_mean(g, variance):
            continue
        add_eps = g.only_consumer(variance.output[0])
        if add_eps is None or add_eps.op_type != "Add":
            continue
        epsilon = g.scalar(_other_input(add_eps, variance.output[0]))
        sqrt = g.only_consumer(add_eps.output[0])
        reciprocal = g.only_consumer(sqrt.output[0]) if sqrt is not None and sqrt.op_type == "Sqrt" else None
        if epsilon is None or reciprocal is None or reciprocal.op_type != "Reciprocal":
            continue
        scale = g.only_consumer(reciprocal.output[0])
        if scale is None or scale.op_type != "Mul":
            continue
        gamma = _other_input(scale, reciprocal.output[0])
        scaled = [u for u in g.consumers.get(scale.output[0], []) if u is not None and u.op_type == "Mul"]
        times_x = next((u for u in scaled if x in u.input), None)
        times_neg = next((u for u in scaled if neg.output[0] in u.input), None)
        if times_x is None or times_neg is None:
            continue
        add_beta = g.only_consumer(times_neg.output[0])
        if add_beta is None or add_beta.op_type != "Add":
            continue
        beta = _other_input(add_beta, times_neg.output[0])
        final = g.only_consumer(times_x.output[0])
        if final is None or final.op_type != "Add" or add_beta.output[0] not in final.input:
            continue
        gamma, beta = _as_vector(g, gamma), _as_vector(g, beta)
        if gamma is None or beta is None:
            continue
        g.add_node("LayerNormalization", [x, gamma, beta], outputs=[final.output[0]], axis=-1, epsilon=epsilon)
        g.graph.node.remove(final)
        count += 1
    g.refresh()
    return count


def _mask_unsqueeze_first(g):
    count = 0
    for outer in list(g.graph.node):
        if outer.op_type != "Unsqueeze":
            continue
        inner = g.parent(outer, 0, "Unsqueeze")
        mul = g.parent(inner, 0, "Mul") if inner is not None else None
        if mul is None:
            continue
        sub = next((g.producer.get(i) for i in mul.input if g.producer.get(i) is not None
                    and g.producer[i].op_type == "Sub"), None)
        if sub is None:
            continue
        bias = g.scalar(_other_input(mul, sub.output[0]))
        one = g.scalar(sub.input[0])
        cast = g.parent(sub, 1, "Cast")
        if bias is None or bias >= 0 or one != 1.0 or cast is None:
            continue
        first = g.add_node("Unsqueeze", [cast.input[0], inner.input[1]])
        second = g.add_node("Unsqueeze", [first.output[0], outer.input[1]])
        new_cast = g.add_node("Cast", [second.output[0]], to=g.attribute(cast, "to"))
        new_sub = g.add_node("Sub", [sub.input[0], new_cast.output[0]])
        g.add_node("Mul", [new_sub.output[0], _other_input(mul, sub.output[0])], outputs=[outer.output[0]])
        g.graph.node.remove(outer)
        count += 1
    g.refresh()
    return count


def _scale_scores(g):
    count = 0
    for matmul in list(g.graph.node):
        if matmul.op_type != "MatMul":
            continue
        softmax_path = g.only_consumer(matmul.output[0])
        if softmax_path is None or softmax_path.op_type != "Add":
            continue
        if not any(u is not None and u.op_type == "Softmax" for u in g.consumers.get(softmax_path.output[0], [])):
            continue
        transpose = g.parent(matmul, 0, "Transpose")
        scale_node, source = None, None
        if transpose is not None and g.parent(transpose, 0, "Mul") is not None:
            scale_node = g.parent(transpose, 0, "Mul")  # Reshape -> Mul(c) -> Transpose -> MatMul
        elif g.parent(matmul, 0, "Mul") is not None:
            scale_node = g.parent(matmul, 0, "Mul")  # Transpose -> Mul(c) -> MatMul
        if scale_node is None:
            continue
        constant = next((i for i in scale_node.input if g.scalar(i) is not None), None)
        if constant is None or g.only_consumer(scale_node.output[0]) is None:
            continue
        source = _other_input(scale_node, constant)
        if transpose is not None and scale_node is g.parent(transpose, 0, "Mul"):
            transpose.input[0] = source
        else:
            matmul.input[0] = source
        scores = matmul.output[0]
        matmul.output[0] = g.name("unscaled_scores") + ":0"
        # Div by sqrt(head_size), as PyTorch's BERT: with Mul, the fusion's parent search
        # finds the scale's Mul where it looks for the mask's Mul and gives up.
        divisor = g.add_initializer(np.array(1.0 / g.scalar(constant), np.float32), "sqrt_head_size")
        g.add_node("Div", [matmul.output[0], divisor], outputs=[scores])
        g.graph.node.remove(scale_node)
        count += 1
    g.refresh()
    return count


def _gelu_div(g):
    count = 0
    for erf in list(g.graph.node):
        if erf.op_type != "Erf":
            continue
        mul = g.parent(erf, 0, "Mul")
        if mul is None or g.only_consumer(mul.output[0]) is None:
            continue
        constant = next((i for i in mul.input if g.scalar(i) is not None), None)
        if constant is None or abs(g.scalar(constant) - 1 / np.sqrt(2)) > 1e-6:
            continue
        sqrt2 = g.add_initializer(np.array(np.sqrt(2.0), np.float32), "sqrt2")
        g.add_node("Div", [_other_input(mul, constant), sqrt2], outputs=[mul.output[0]])
        g.graph.node.remove(mul)
        count += 1
    g.refresh()
    return count


PASSES = (
    ("gather_indices", _gather_indices),
    ("position_gather", _position_gather),
    ("layer_norm", _layer_norm),
    ("mask_unsqueeze_first", _mask_unsqueeze_first),
    ("scale_scores", _scale_scores),
    ("gelu_div", _gelu_div),
)


def rewrite_for_ort_fusion(model):
    """Applies every pass in place; returns `{pass name: number of rewrites}`.

    Args:
        model: an `onnx.ModelProto` from tf2onnx (opset >= 17 for LayerNormalization).

    Example:
        >>> counts = rewrite_for_ort_fusion(onnx.load("model.onnx"))
    """
    g = _Graph(model)
    counts = {}
    for name, rewrite in PASSES:
        counts[name] = rewrite(g)
        g.finish()
    onnx.checker.check_model(model)
    return counts
