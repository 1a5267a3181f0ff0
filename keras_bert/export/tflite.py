"""TFLite export: float32, float16 and dynamic-range int8 id-level models, plus a tokenizer-in-graph model.

Task signatures in TFLite (builtins + tensorflow-text's TFLite kernels, no Select-TF ops):
`classify` converts (label names are a string constant; Tile/Gather/ArgMax run on strings).
`entities` and `answer` do not: character offsets and windows need ops that have neither a
TFLite builtin nor a tensorflow-text kernel (measured with TF 2.21 / tensorflow-text 2.21):
UnicodeDecodeWithOffsets and StringLength (byte -> character offsets), LowerBound/UpperBound
(`tf.searchsorted`), RaggedRange (`tf.ragged.range`), RaggedGather, Substr (the answer text),
plus DenseBincount and UnsortedSegmentSum (`entities`) or int64 FloorDiv/SelectV2 (`answer`).
Serve those from the SavedModel (`task_signatures.py`, `answer_signature.py`).
"""

import os
import pathlib

import numpy as np
import tensorflow as tf
import tensorflow_text as text

from keras_bert.export import verify
from keras_bert.export.verify_reference import keras_outputs, sample_ids, text_samples
from keras_bert.export.serving_module import ServingModule
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.tokenizer import Tokenizer

QUANTIZATIONS = ("float32", "float16", "int8")
# Keras parity per variant: max abs diff for float weights; top-1 agreement for int8.
TOLERANCES = {"float32": 1e-4, "float16": 1e-2, "int8": None}
INT8_MIN_AGREEMENT = 0.99


def _convert(functions, module, quantization):
    converter = tf.lite.TFLiteConverter.from_concrete_functions(functions, module)
    # Builtins plus tensorflow-text's TFLite custom ops; no Select-TF (Flex) ops, which the
    # Python interpreter and most mobile runtimes lack (docs/DESIGN.md, known traps).
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    converter.allow_custom_ops = True
    if quantization == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif quantization == "int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]  # weights int8, activations dynamic
    elif quantization != "float32":
        raise ValueError(f"quantization must be one of {QUANTIZATIONS}, got {quantization!r}.")
    try:
        content = converter.convert()
    except Exception as error:  # the converter's own message names the failing op
        raise verify.ConversionError(
            f"TFLite conversion ({quantization}) failed without Select-TF ops; an op in the graph "
            f"has no TFLite builtin or tensorflow-text kernel: {error}") from error
    check_ops_resolve(content)
    return content


def check_ops_resolve(content):
    """Raises if the model has a custom op that neither TFLite nor tensorflow-text can run.

    With `allow_custom_ops=True` the converter keeps any op it cannot lower as a custom op
    and "succeeds"; the file then fails only when an interpreter prepares it.
    """
    from ai_edge_litert.interpreter import InterpreterWithCustomOps  # pylint: disable=import-outside-toplevel

    interpreter = InterpreterWithCustomOps(
        model_content=content, custom_op_registerers=text.tflite_registrar.SELECT_TFTEXT_OPS)
    try:
        interpreter.allocate_tensors()
    except RuntimeError as error:
        if "unresolved custom op" in str(error):
            raise verify.ConversionError(
                f"The TFLite model contains an op no interpreter can run (it was kept as a custom "
                f"op): {error}. Rewrite that op in the model or the export graph.") from None
        raise


def fast_tokenizer(tokenizer):
    """The TFLite-convertible twin of `tokenizer` (`normalization="fast"`, same vocabulary)."""
    if tokenizer.normalization == "fast":
        return tokenizer
    twin = Tokenizer(tokenizer.vocab_path, lower_case=tokenizer.lower_case, normalization="fast",
                     max_chars_per_word=tokenizer.max_chars_per_word)
    # Pairs packed as the model's family reads them (`bind_pair_layout`): DistilBERT types B 0, not 1.
    twin.pair_layout = getattr(tokenizer, "pair_layout", "bert")
    return twin


class _TextModule(tf.Module):
    """`serve_text(text_a)` and `serve_text_pair(text_a, text_b)`, written for the TFLite converter."""

    def __init__(self, model, module, tokenizer, options=None):
        super().__init__(name="keras_bert_tflite_text")
        self.module = module  # the ServingModule: its variables, tracked
        seq_length = module.serving.seq_length
        self.tokenizer = tokenizer
        self.preprocessor = Preprocessor(tokenizer, seq_length, padding="longest")  # dense packing: TFLite-safe;
        # padded to the request's longest text, as the SavedModel (seq_length is a maximum)

        def outputs(inputs):
            # The ids too, to check the in-graph tokenizer.
            return dict(module.serving.outputs_from_ids(inputs), **inputs)

        def serve_text(text_a):
            return outputs(self.preprocessor(text_a))

        def serve_text_pair(text_a, text_b):
            return outputs(self.preprocessor(text_a, text_b))

        spec = lambda name: tf.TensorSpec([None], tf.string, name=name)  # noqa: E731
        self.serve_text = tf.function(serve_text, autograph=False, input_signature=[spec("text_a")])
        self.serve_text_pair = tf.function(serve_text_pair, autograph=False,
                                           input_signature=[spec("text_a"), spec("text_b")])
        # The task's raw-text signatures that TFLite can run (e.g. `classify`), as the SavedModel
        # has them, on the fast tokenizer.
        self.task_signatures = {}
        names = module.serving.tflite_signatures
        if names:
            twin = ServingModule(model, tokenizer, seq_length, runtime_checks=False,
                                 string_outputs=False, options=options)
            signatures = twin.task_signatures()
            self.task_signatures = {name: signatures[name] for name in names if name in signatures}
            for name, function in self.task_signatures.items():
                setattr(self, name, function)


def export_tflite(model, output_dir, tokenizer=None, seq_length=128, quantizations=QUANTIZATIONS,
                  text=True, overwrite=False, sample_texts=None, verify_export=True,
                  raise_on_failure=True, options=None):
    """Converts a Keras BERT model to TFLite files and checks each in a fresh process.

    Writes `model_<quantization>.tflite` (signature `serving_default`: int32
    `input_word_ids`, `input_mask`, `input_type_ids`, dynamic batch and sequence) for each
    quantization: "float32", "float16" (weights stored as float16) and "int8" (dynamic
    range: int8 weights, activations quantized on the fly). With a tokenizer and
    `text=True` it also writes `text_float32.tflite`, tokenizer in graph: signatures
    `serve_text` (`text_a`) and `serve_text_pair` (`text_a`, `text_b`), string `[batch]`
    in, the task outputs plus the packed ids out. The in-graph tokenizer is the
    `normalization="fast"` variant of `tokenizer` (FastBertTokenizer; converts without
    Select-TF ops); it differs from the reference normalization on rare characters (see
    `Tokenizer`). A classifier with label names also gets the `classify` signature
    (`text_a`, `text_b` -> `labels`, `probabilities`, `top_label`, as the SavedModel's);
    `entities` and `answer` do not convert (see the module docstring). Load with `ai_edge_litert.interpreter.InterpreterWithCustomOps(...,
    custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)`.

    Args:
        model: a built Keras model (encoder, classifier, span labeler or pretrainer).
        output_dir: folder for the .tflite files (created).
        tokenizer: optional `keras_bert.text.Tokenizer` for the text model.
        seq_length: packed length of the text model.
        quantizations: subset of ("float32", "float16", "int8").
        text: also write the tokenizer-in-graph model (not for pretrainers).
        overwrite: replace existing files.
        sample_texts: texts for the parity check.
        raise_on_failure: raise `verify.ParityError` when a check fails (else only report it).
        verify_export: run each file in a subprocess and compare with Keras.
        options: task options replacing the model's (`ServingModule`), e.g. a classifier's
            `{"labels": [...]}` (adds `classify` to the text model).

    Returns:
        `verify.ExportReport`; `report.extra["files"]` maps variant -> path.

    Example:
        >>> report = export_tflite(classifier, "savedmodels/sst2/tflite/1", tokenizer=Tokenizer("vocab.txt"))
        >>> print(report.table())
    """
    if not getattr(tokenizer, "portable_text_ops", True):  # ids only: its lookup tables stay out of the file too
        tokenizer = None
    module = ServingModule(model, tokenizer, seq_length=seq_length, runtime_checks=False,
                           string_outputs=False, options=options)
    bad = [q for q in quantizations if q not in QUANTIZATIONS]
    if bad:
        raise ValueError(f"Unknown quantization(s) {bad}; expected a subset of {QUANTIZATIONS}.")
    output_dir = os.path.abspath(os.fspath(output_dir))
    planned = {q: os.path.join(output_dir, f"model_{q}.tflite") for q in quantizations}
    text = text and tokenizer is not None and module.serving.plain_text
    if text:
        planned["text_float32"] = os.path.join(output_dir, "text_float32.tflite")
    verify.prepare_output_dir(output_dir, planned.values(), overwrite)
    report = verify.ExportReport(output_dir, extra={"files": planned, "sizes": {}})
    ids_function = module.serve_ids.get_concrete_function()
    for quantization in quantizations:
        content = _convert([ids_function], module, quantization)
        pathlib.Path(planned[quantization]).write_bytes(content)
        report.extra["sizes"][quantization] = len(content)
    if text:
        text_module = _TextModule(model, module, fast_tokenizer(tokenizer), options)
        functions = [text_module.serve_text.get_concrete_function(),
                     text_module.serve_text_pair.get_concrete_function()]
        functions += [f.get_concrete_function() for f in text_module.task_signatures.values()]
        content = _convert(functions, text_module, "float32")
        pathlib.Path(planned["text_float32"]).write_bytes(content)
        report.extra["sizes"]["text_float32"] = len(content)
        report.extra["text_module"] = text_module
    if verify_export:
        report.rows += check_tflite(module.serving, planned, sample_texts, report.extra.get("text_module"))
        if raise_on_failure:
            report.raise_if_failed()
    return report


def _reference_ids_row(serving, label, segments, fast_ids):
    """Report-only row: on which sample rows the text model's ids (FastBertTokenizer's NFKC
    folding) differ from BERT's reference normalization (`serving`'s tokenizer, as the SavedModel)."""
    want = serving.preprocessor(*[tf.constant(s) for s in segments])["input_word_ids"].numpy()
    got = fast_ids["input_word_ids"]
    width = max(want.shape[1], got.shape[1])  # each batch is padded to its own longest row
    want, got = (np.pad(ids, [(0, 0), (0, width - ids.shape[1])]) for ids in (want, got))
    differ = [i for i in range(len(want)) if (want[i] != got[i]).any()]
    note = ("report only: " + (f"differs on rows {differ}, e.g. {segments[0][differ[0]][:40]!r}" if differ else
                               "equal on every row") + " (tools/fast_normalization_report.py)")
    return verify.ParityRow("tflite_text_float32", f"serve_text[{label}]", "ids == reference tokenizer",
                            agreement=1 - len(differ) / max(len(want), 1), note=note)


def check_tflite(serving, files, sample_texts=None, text_module=None):
    """Each TFLite file in a fresh process against Keras; the text model's ids against Python's tokenizer."""
    ids = sample_ids(serving, sample_texts)
    reference = keras_outputs(serving, ids, tokens=False)
    rows = []
    variants = [v for v in files if v != "text_float32"]
    results, _ = verify.run_artifact("tflite", files[variants[0]],
                                     [("serving_default", ids, files[v]) for v in variants]) if variants else ([], {})
    for variant, actual in zip(variants, results):
        tolerance = TOLERANCES[variant]
        min_agreement = INT8_MIN_AGREEMENT if tolerance is None else 1.0
        rows += verify.compare(f"tflite_{variant}", "serving_default", reference, actual, tolerance,
                               min_agreement, input_mask=ids["input_mask"])
    if text_module is not None and "text_float32" in files:
        calls, references = [], []
        for label, texts in text_samples(serving, sample_texts):
            pair = "text_b" in texts
            segments = [texts["text_a"]] + ([texts["text_b"]] if pair else [])
            ref_ids = {k: v.numpy() for k, v in text_module.preprocessor(*[tf.constant(s) for s in segments]).items()}
            rows.append(_reference_ids_row(serving, label, segments, ref_ids))
            reference = dict(keras_outputs(serving, ref_ids, tokens=False), **ref_ids)
            calls.append(("serve_text_pair" if pair else "serve_text", texts))
            references.append((f"serve_text[{label}]", reference, ref_ids["input_mask"]))
            for name, function in text_module.task_signatures.items():  # e.g. classify
                inputs = {spec.name: texts.get(spec.name, np.array([], object)) for spec in function.input_signature}
                calls.append((name, inputs))
                want = function(**{k: tf.constant(list(v), tf.string) for k, v in inputs.items()})
                references.append((f"{name}[{label}]", {k: v.numpy() for k, v in want.items()}, None))
        results, _ = verify.run_artifact("tflite", files["text_float32"], calls)
        for (label, reference, mask), actual in zip(references, results):
            rows += verify.compare("tflite_text_float32", label, reference, actual, TOLERANCES["float32"],
                                   input_mask=mask)
    return rows
