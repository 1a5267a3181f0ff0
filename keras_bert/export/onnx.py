"""ONNX export with tf2onnx, rewritten so ONNX Runtime's BERT optimizer fuses it, verified in onnxruntime.

Task outputs in `model.onnx` (ids in; tf2onnx converts them, string tensors included): a
classifier with label names also returns `labels` and `top_label` (strings, in the graph);
a span labeler returns the best span of one-window features,
`answer_start` / `answer_end` (positions in the sequence; the client maps them to characters
with its tokenizer's offsets), `score` and `null_score`, as `squad_postprocess` picks them.
`entities` is not in ONNX: its words and character offsets come from tensorflow-text ops
(FastWordpieceTokenizeWithOffsets, RaggedRange, ...), which tf2onnx cannot convert; the token
classifier's `probabilities` are there. Raw text in: `onnx_text.py`.
"""

import collections
import os

import tensorflow as tf

from keras_bert.models.model_operations import find_encoder
from keras_bert.compat import tf2onnx_bounded_memory
from keras_bert.export import onnx_text, verify
from keras_bert.export.onnx_ops import TOLERANCE, OnnxConversionError, check_ops  # noqa: F401 (re-exported)
from keras_bert.export.onnx_rewrites import REWRITES, rewrite_for_ort_fusion
from keras_bert.export.verify_reference import keras_outputs, sample_ids, text_samples
from keras_bert.export.serving_module import ID_INPUTS, ServingModule

TEXT_CHECKS = 8  # examples of text_model.onnx checked (it runs one per call)
FUSED_OPS = ("Attention", "SkipLayerNormalization", "BiasGelu", "FastGelu", "Gelu", "EmbedLayerNormalization")


def _name_dynamic_axes(model):
    for value in list(model.graph.input) + list(model.graph.output):
        dims = value.type.tensor_type.shape.dim
        for index, dim in enumerate(dims):
            if not dim.HasField("dim_value"):
                dim.dim_param = ("batch", "sequence", "dim_2")[min(index, 2)]


def fused_op_counts(model):
    """`{op: count}` for the fused ONNX Runtime ops present in an ONNX model."""
    counts = collections.Counter(node.op_type for node in model.graph.node)
    return {op: counts.get(op, 0) for op in FUSED_OPS}


def export_onnx(model, output_dir, opset=17, optimize=True, overwrite=False, sample_texts=None,
                tokenizer=None, verify_export=True, raise_on_failure=True, rewrites=REWRITES,
                options=None, text=True, seq_length=128):
    """Exports the id-level model to ONNX and checks it in onnxruntime (fresh process).

    Writes `model.onnx`: int32 `input_word_ids`, `input_mask`, `input_type_ids` with
    dynamic `batch` and `sequence` axes, the task outputs of `ServingModule` (no
    tokenizer: tensorflow-text ops have no ONNX equivalent). The layers trace as the
    patterns ONNX Runtime fuses (no global TF patch) and the ONNX graph is rewritten by
    `onnx_rewrites.rewrite_for_ort_fusion`, so that with `optimize=True`
    `model_optimized.onnx` (ONNX Runtime's BERT optimizer) has the fused Attention,
    SkipLayerNormalization, BiasGelu and EmbedLayerNormalization ops.

    Args:
        model: a built Keras model (encoder, classifier, span labeler or pretrainer).
        output_dir: folder for the .onnx files (created).
        opset: ONNX opset (>= 17: LayerNormalization).
        optimize: also write the ORT-optimized model.
        overwrite: replace existing files.
        sample_texts: texts for the parity check (needs `tokenizer`; else random ids).
        tokenizer: optional tokenizer, only to build realistic check inputs.
        raise_on_failure: raise `verify.ParityError` when a check fails (else only report it).
        verify_export: run both files in onnxruntime in a fresh process and compare with
            Keras (tolerance 1e-4).
        rewrites: which `onnx_rewrites.REWRITES` passes to apply (default: all; without them
            ONNX Runtime fuses nothing, see onnx_rewrites.py).
        options: task options replacing the model's (`ServingModule`), e.g. `{"labels": [...]}` (a
            classifier's `labels` and `top_label` outputs) or a span labeler's `{"max_answer_length": 20}`.
        text: with a tokenizer, also write `text_model.onnx`: raw strings in, through
            onnxruntime-extensions' BertTokenizer op (`onnx_text.py`; not for pretrainers).
        seq_length: the text model's packed length.

    Returns:
        `verify.ExportReport`; `extra` holds `files`, `fused_ops` and `rewrites`.

    Example:
        >>> report = export_onnx(load_checkpoint(minilm_dir, model="encoder"), "savedmodels/minilm/onnx/1")
        >>> report.extra["fused_ops"]["Attention"]
        6
    """
    import onnx as onnx_lib  # pylint: disable=import-outside-toplevel
    import tf2onnx  # pylint: disable=import-outside-toplevel

    if opset < 17:
        raise ValueError(f"opset={opset} is too old; use opset >= 17 (LayerNormalization).")
    module = ServingModule(model, tokenizer, seq_length=seq_length, runtime_checks=False, string_outputs=False,
                           options=options)
    output_dir = os.path.abspath(os.fspath(output_dir))
    files = {"onnx": os.path.join(output_dir, "model.onnx")}
    if optimize:
        files["onnx_optimized"] = os.path.join(output_dir, "model_optimized.onnx")
    text = text and tokenizer is not None and module.serving.plain_text and getattr(tokenizer, "portable_text_ops", True)
    if text:
        files["onnx_text"] = os.path.join(output_dir, "text_model.onnx")
    verify.prepare_output_dir(output_dir, files.values(), overwrite)

    spec = [{name: tf.TensorSpec([None, None], tf.int32, name=name) for name in ID_INPUTS}]
    function = tf.function(module.serving.answer_from_ids, autograph=False, input_signature=spec)
    with tf2onnx_bounded_memory():
        try:
            proto, _ = tf2onnx.convert.from_function(function, input_signature=spec, opset=opset)
        except Exception as error:  # tf2onnx's own message names the op it could not convert
            raise verify.ConversionError(f"ONNX conversion (tf2onnx, opset {opset}) failed: {error}") from error
    check_ops(proto)
    rewrites = rewrite_for_ort_fusion(proto, rewrites)
    _name_dynamic_axes(proto)
    onnx_lib.save(proto, files["onnx"])
    report = verify.ExportReport(output_dir, extra={"files": files, "rewrites": rewrites})
    if optimize:
        from onnxruntime.transformers.optimizer import optimize_model  # pylint: disable=import-outside-toplevel

        config = find_encoder(model).config
        optimized = optimize_model(files["onnx"], model_type="bert", num_heads=config.num_heads,
                                   hidden_size=config.hidden_size)
        check_ops(optimized.model, allow_contrib=True)
        optimized.save_model_to_file(files["onnx_optimized"])
        report.extra["fused_ops"] = fused_op_counts(optimized.model)
    if text:
        text_serving = onnx_text.export_onnx_text(model, files["onnx_text"], tokenizer, seq_length, options,
                                                 opset)
    if verify_export:
        report.rows += check_onnx(module.serving, files, sample_texts)
        if text:  # one example per call: the first TEXT_CHECKS texts and pairs
            for _, texts in text_samples(module.serving, sample_texts):
                pairs = texts.get("text_b")
                report.rows += onnx_text.check_onnx_text(text_serving, files["onnx_text"], texts["text_a"][:TEXT_CHECKS],
                                                         None if pairs is None else pairs[:TEXT_CHECKS])
        if raise_on_failure:
            report.raise_if_failed()
    return report


def check_onnx(serving, files, sample_texts=None, id_batches=None):
    """Each ONNX file in onnxruntime (fresh process, no TF / keras) against Keras, tolerance 1e-4.

    Args:
        serving: the serving object of the exported model (`ServingModule.serving`).
        files: `{label: path}` (an "onnx_text" entry is left to `onnx_text.check_onnx_text`).
        sample_texts: texts for the default check inputs.
        id_batches: optional list of id dicts to run instead (e.g. a shape sweep).
    """
    batches = id_batches or [sample_ids(serving, sample_texts)]
    references = [keras_outputs(serving, ids, tokens=False) for ids in batches]
    labels = [label for label in files if label != "onnx_text"]  # strings in: onnx_text.check_onnx_text
    calls = [("", ids, files[label]) for label in labels for ids in batches]
    results, info = verify.run_artifact("onnx", files[labels[0]], calls)
    rows = []
    for i, label in enumerate(labels):
        for j, (ids, reference) in enumerate(zip(batches, references)):
            shape = "x".join(str(d) for d in ids["input_word_ids"].shape)
            rows += verify.compare(label, f"ids[{shape}]", reference, results[i * len(batches) + j],
                                   TOLERANCE, input_mask=ids["input_mask"])
    if {"keras", "keras_bert", "tensorflow"} & set(info["imported"]):
        rows.append(verify.ParityRow("onnx", "-", "hermetic load", ok=False, note=f"imported {info['imported']}"))
    return rows
