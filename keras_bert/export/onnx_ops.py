"""What an ONNX graph must hold: known ONNX ops only (tf2onnx copies ops it cannot convert)."""

import collections

from keras_bert.errors import ConversionError

TOLERANCE = 1e-4
_ALLOWED_CUSTOM_DOMAINS = ("com.microsoft",)
OnnxConversionError = ConversionError  # its name before every format shared one conversion error


def check_ops(model, allow_contrib=False):
    """Raises `ConversionError` naming every node that is not a known ONNX op.

    tf2onnx "succeeds" on unsupported TensorFlow ops by copying them into the graph
    under their TF names; onnxruntime then refuses the file. Known-op check: the ONNX
    op schema registry (plus `com.microsoft` ops after the ORT optimizer).
    """
    import onnx  # pylint: disable=import-outside-toplevel

    bad = collections.Counter()
    for node in model.graph.node:
        domain = node.domain or ""
        if domain in ("", "ai.onnx", "ai.onnx.ml"):
            if not onnx.defs.has(node.op_type, domain if domain != "ai.onnx" else ""):
                bad[f"{node.op_type}"] += 1
        elif not (allow_contrib and domain in _ALLOWED_CUSTOM_DOMAINS):
            bad[f"{domain}.{node.op_type}"] += 1
    if bad:
        raise ConversionError(
            f"The ONNX graph contains ops that are not ONNX ops: {dict(bad)}. tf2onnx copied "
            "TensorFlow ops it could not convert; onnxruntime cannot run this file. Rewrite "
            "those ops in the model (docs/DESIGN.md's known traps list some, e.g. Erfc from keras gelu).")
