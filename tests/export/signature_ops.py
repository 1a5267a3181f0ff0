"""Every op a SavedModel signature runs: read from `saved_model.pb` (no TensorFlow import), walking
from the signature's outputs through the graph and every function it calls (the graph library)."""

import os

CUSTOM_PREFIXES = ("TFText>",)


def _load(export_dir):
    from tensorflow.core.protobuf import saved_model_pb2  # pylint: disable=import-outside-toplevel

    saved_model = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        saved_model.ParseFromString(f.read())
    (meta_graph,) = [m for m in saved_model.meta_graphs if "serve" in m.meta_info_def.tags]
    return meta_graph


def _called_functions(node, functions):
    """Functions a node calls: by op name, or in a `func` / `list(func)` attr (If, While, calls)."""
    names = [node.op] if node.op in functions else []
    for attr in node.attr.values():
        if attr.HasField("func"):
            names.append(attr.func.name)
        names += [f.name for f in attr.list.func]
    return names


def signature_ops(export_dir):
    """`{signature name: sorted op names}`; ops that are functions of the library are walked into,
    not listed. Only what a signature reaches counts (not the saver's restore ops)."""
    meta_graph = _load(export_dir)
    graph = meta_graph.graph_def
    functions = {f.signature.name: f for f in graph.library.function}
    nodes = {n.name: n for n in graph.node}
    result = {}
    for name, signature in meta_graph.signature_def.items():
        ops, seen_nodes, seen_functions = set(), set(), set()
        pending = [t.name.split(":")[0] for t in signature.outputs.values()]
        pending_functions = []
        while pending:  # the top-level graph, backwards from the outputs
            node = nodes[pending.pop().lstrip("^").split(":")[0]]
            if node.name in seen_nodes:
                continue
            seen_nodes.add(node.name)
            if node.op not in functions:
                ops.add(node.op)
            pending_functions += _called_functions(node, functions)
            pending += list(node.input)
        while pending_functions:  # every function reached, and the functions they call
            function = pending_functions.pop()
            if function in seen_functions:
                continue
            seen_functions.add(function)
            for node in functions[function].node_def:
                if node.op not in functions:
                    ops.add(node.op)
                pending_functions += _called_functions(node, functions)
        result[name] = sorted(ops)
    return result


def is_custom(op, text_ops):
    """A tensorflow-text op (any name in `text_ops`, or `TFText>`-prefixed), not core TensorFlow."""
    return op in text_ops or op.startswith(CUSTOM_PREFIXES)
