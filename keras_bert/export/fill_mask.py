"""Fill-in-the-mask through an exported SavedModel (the end of the pretraining job)."""

import os

import tensorflow as tf

from keras_bert.export.saved_model import next_version, saved_model
from keras_bert.export.serving_config import write_models_config


def query_fill_mask(export_dir, texts):
    """Asks an exported pretrainer SavedModel to fill every `[MASK]` in `texts`.

    Runs the `serving_default` signature (raw text in, tokenization in the graph).

    Args:
        export_dir: `savedmodels/<name>/<version>`.
        texts: a string or list of strings containing `[MASK]`.

    Returns:
        For each text, one list per `[MASK]` of `(token, probability)` pairs, best first.

    Example:
        >>> query_fill_mask("savedmodels/bert_shakespeare/1", "To be or not to [MASK].")
        [[[('be', 0.41), ('go', 0.05), ...]]]
    """
    texts = [texts] if isinstance(texts, str) else list(texts)
    unmasked = [t for t in texts if "[MASK]" not in t]
    if not texts or unmasked:
        raise ValueError(f"query_fill_mask needs one or more texts, each with a [MASK]; got {texts!r}.")
    loaded = tf.saved_model.load(os.fspath(export_dir))
    signature = loaded.signatures["serving_default"]
    if "top_k_tokens" not in signature.structured_outputs:
        raise ValueError(
            f"{export_dir} is not a fill-mask SavedModel (its outputs are "
            f"{sorted(signature.structured_outputs)}); export a BertPretrainer with a tokenizer.")
    out = signature(text_a=tf.constant(texts), text_b=tf.constant([], tf.string))
    positions = out["masked_lm_positions"].numpy()
    tokens, probabilities = out["top_k_tokens"].numpy(), out["top_k_probabilities"].numpy()
    answers = []
    for row in range(len(texts)):
        answers.append([
            [(t.decode("utf-8"), float(p)) for t, p in zip(tokens[row, slot], probabilities[row, slot])]
            for slot in range(positions.shape[1]) if positions[row, slot] >= 0])
    return answers


def export_and_query_fill_mask(pretrainer, tokenizer, name, query="The capital of France is [MASK].",
                               base_dir="savedmodels", version=None, seq_length=128, top_k=5,
                               overwrite=False):
    """Exports a trained pretrainer to `<base_dir>/<name>/<version>/` and fills the mask in `query` with it.

    The SavedModel is checked against Keras in a fresh process (raises
    `verify.ParityError` on mismatch), `models.config` is updated, then the exported model
    (not the Keras one) answers `query`.

    Args:
        pretrainer: a `BertPretrainer` (e.g. the one `tools/pretrain.py` trained).
        tokenizer: its `keras_bert.text.Tokenizer`.
        name: model name under `base_dir`.
        query: text(s) with `[MASK]`.
        base_dir: the `savedmodels` folder.
        version: integer version (default: next free).
        seq_length: packed length of the text signature.
        top_k: predictions per mask.
        overwrite: replace an existing version.

    Returns:
        dict: `export_dir`, `version`, `report` (parity), `answers` (see `query_fill_mask`).

    Example:
        >>> result = export_and_query_fill_mask(model, tokenizer, "bert_shakespeare",
        ...                                     query="To be or not to [MASK].")
        >>> result["answers"][0][0][:2]
        [('be', 0.41), ('go', 0.05)]
    """
    inputs = getattr(pretrainer, "input", None)
    if not (isinstance(inputs, dict) and "masked_lm_positions" in inputs):
        raise ValueError(f"export_and_query_fill_mask needs a BertPretrainer (masked-LM head); got "
                         f"{type(pretrainer).__name__} {pretrainer.name!r}.")
    version = int(version) if version is not None else next_version(os.path.join(base_dir, name))
    export_dir = os.path.join(base_dir, name, str(version))
    report = saved_model(pretrainer, export_dir, tokenizer=tokenizer, seq_length=seq_length,
                         top_k=top_k, overwrite=overwrite)
    write_models_config(base_dir)
    return {"export_dir": export_dir, "version": version, "report": report,
            "answers": query_fill_mask(export_dir, query)}
