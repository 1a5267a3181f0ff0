"""OnnxGraph: producer / consumer / constant lookups and node edits over an ONNX graph (for onnx_rewrites)."""

import collections

import numpy as np
from onnx import helper, numpy_helper


class OnnxGraph:
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
        value = self.attribute(node, "value") if node is not None and node.op_type == "Constant" else None
        return None if value is None else numpy_helper.to_array(value)

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
        for node in reversed(topological_order(self.graph)):
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


def topological_order(graph):
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


def other_input(node, name):
    return node.input[1] if node.input[0] == name else node.input[0]
