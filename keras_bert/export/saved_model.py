"""SavedModel export for TF Serving: `serving_default` (raw text) and `serve_ids` (token ids)."""

import os
import shutil
import tempfile

import tensorflow as tf

from keras_bert.export import verify
from keras_bert.export.precision import model_in_precision
from keras_bert.export.serving_module import ServingModule, build_serving


def check_version_dir(export_dir, overwrite=False):
    """Validates a TF Serving version directory `<base>/<name>/<version>`; returns it absolute."""
    export_dir = os.path.abspath(os.fspath(export_dir))
    version = os.path.basename(export_dir)
    if not version.isdigit():
        raise ValueError(
            f"export_dir must end in a numeric version directory, like savedmodels/<name>/1 "
            f"(TF Serving only loads integer versions); got {export_dir!r}.")
    if os.path.exists(export_dir) and not overwrite:
        raise FileExistsError(
            f"{export_dir} already exists. Export to a new version number, or pass "
            "overwrite=True (--overwrite) to replace it.")
    return export_dir


def next_version(model_dir):
    """1 + the largest numeric version directory in `model_dir` (1 if there is none)."""
    versions = [int(d) for d in os.listdir(model_dir) if d.isdigit()] if os.path.isdir(model_dir) else []
    return max(versions, default=0) + 1


def export_saved_model(model, export_dir, tokenizer=None, seq_length=128, overwrite=False, top_k=5,
                       mask_id=None, sample_texts=None, verify_export=True,
                       raise_on_failure=True, options=None, precision="fp32"):
    """Writes a SavedModel (tag `serve`) that TF Serving loads, and checks it in a fresh process.

    Signatures: `serving_default` takes raw text (`text_a`, optional `text_b`, string
    `[batch]`): tokenization (WordPiece, in graph), packing to `seq_length` (longer text is
    truncated; pairs share the budget round-robin; empty strings are allowed) and the
    model. `serve_ids` takes int32 `input_word_ids`, `input_mask`, `input_type_ids` with
    dynamic batch and sequence (sequence <= max_position_embeddings). Outputs: see
    `ServingModule`. The vocabulary is stored as an asset; loading needs only
    `tensorflow` + `tensorflow_text`; the text contract is in `assets.extra/`
    (`keras_bert.TextConfig.from_dir(export_dir)`). The directory is written next to its final place
    and renamed, so a watching model server never sees half a model.

    Args:
        model: a built Keras model (encoder, classifier, span labeler or pretrainer).
        export_dir: `savedmodels/<name>/<version>` (the version must be an integer).
        tokenizer: `keras_bert.text.Tokenizer` for `serving_default`; without it,
            `serving_default` is the ids signature.
        seq_length: packed length of the text signature.
        overwrite: replace an existing version directory.
        top_k: predictions per `[MASK]` for a pretrainer.
        mask_id: `[MASK]` id for a pretrainer exported without tokenizer.
        sample_texts: texts used for the parity check (default: built-in sentences).
        raise_on_failure: raise `verify.ParityError` when a check fails (else only report it).
        verify_export: reload in a subprocess and compare with Keras (raises `ParityError`).
        options: task options replacing the model's, e.g. `{"labels": [...]}` (classifier: the
            `classify` signature; token classifier: `entities`) or a span labeler's
            `{"doc_stride": 64}` (its `answer` signature); see `ServingModule`.
        precision: "fp32", or "bf16": the model's matmuls run in bfloat16 (Keras'
            "mixed_bfloat16"; outputs stay float32). On CPUs with AVX512_BF16 or AMX (oneDNN)
            a MiniLM QA batch ran 1.47x float32's speed; elsewhere bfloat16 is emulated and
            slower. Outputs move by ~1 % of their scale: verified against the same model in
            bfloat16; a report-only row says how far from the float32 model `serve_ids` moved.

    Returns:
        `verify.ExportReport` with the path and the parity rows.

    Example:
        >>> report = export_saved_model(build_classifier(config, 2), "savedmodels/sst2/1",
        ...                      tokenizer=Tokenizer("vocab.txt"), seq_length=128)
        >>> print(report.table())
    """
    export_dir = check_version_dir(export_dir, overwrite)
    served = model_in_precision(model, precision)
    settings = dict(seq_length=seq_length, top_k=top_k, mask_id=mask_id, options=options)
    module = ServingModule(served, tokenizer, **settings)
    parent = os.path.dirname(export_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".tmp-export-", dir=parent)
    try:
        tf.saved_model.save(module, os.path.join(staging, "model"), signatures=module.signatures())
        if tokenizer is not None:  # the text contract, for clients: TextConfig.from_dir(export_dir)
            tokenizer.text_config.replace(max_seq_length=seq_length).save(
                os.path.join(staging, "model", "assets.extra"))
        if os.path.exists(export_dir):
            shutil.rmtree(export_dir)
        os.replace(os.path.join(staging, "model"), export_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report = verify.ExportReport(export_dir)
    if verify_export:
        float32_serving = None if served is model else build_serving(model, tokenizer, **settings)
        report.rows += verify.check_saved_model(module.serving, export_dir, sample_texts, precision, float32_serving)
        if raise_on_failure:
            report.raise_if_failed()
    return report
