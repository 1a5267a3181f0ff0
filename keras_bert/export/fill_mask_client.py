"""Fill-in-the-mask clients of a pretrainer: a SavedModel client (not an export format) and the Keras path.

`query_fill_mask` asks an exported fill-mask SavedModel, as a client of TF Serving's would (the
`serving_default` signature, raw text in); `export_and_query_fill_mask` exports one and asks it.
`fill_mask` runs the Keras model eagerly on exactly `[CLS] text [SEP]`: 1.6-2.9 s for a tiny
pretrainer, where going through `ServingModule`'s traced text signature took 35-79 s per
call (loaded 2-core CPU). Both give the same answers (tests/export/test_fill_mask_client.py).
"""

import os

import numpy as np
import tensorflow as tf

from keras_bert.export.saved_model import export_saved_model, next_version
from keras_bert.export.models_config import write_models_config
from keras_bert.text.mask_token import mask_token_of, tokenize_keeping_masks
from keras_bert.text.packer import pack_segments


def fill_mask(pretrainer, tokenizer, texts, top_k=5):
    """Predicts the tokens behind each `[MASK]` in `texts`.

    The text around each literal `[MASK]` is tokenized with `tokenizer`; the masks
    go in as the `[MASK]` id, the sequence as `[CLS] text [SEP]`.

    Args:
        pretrainer: a `BertPretrainer` (outputs `mlm_logits`).
        tokenizer: the `keras_bert.Tokenizer` of its vocabulary.
        texts: list of strings, each with at least one `[MASK]`.
        top_k: candidates per mask.

    Returns:
        One list per text, one list per mask in it, of `(token, probability)` pairs, best first.

    Example:
        >>> fill_mask(model, tokenizer, ["the king is [MASK] ."])[0][0][:2]
        [('dead', 0.21), ('here', 0.07)]
    """
    texts = [texts] if isinstance(texts, str) else list(texts)
    if not texts:
        raise ValueError(f"fill_mask got no texts; pass one or more texts with a {mask_token_of(tokenizer)} in each.")
    model_inputs = getattr(pretrainer, "input", None)
    if not (isinstance(model_inputs, dict) and "masked_lm_positions" in model_inputs):
        raise ValueError(f"fill_mask needs a BertPretrainer (masked-LM head); got "
                         f"{type(pretrainer).__name__} {pretrainer.name!r}. Load it with "
                         "load_checkpoint(path, model='pretrainer').")
    for text in texts:
        if mask_token_of(tokenizer) not in text:
            raise ValueError(f"fill_mask needs a {mask_token_of(tokenizer)} in every text; got {text!r}.")
    pieces = tokenize_keeping_masks(tokenizer, tf.constant(texts), tokenizer.mask_id)
    length = int(tf.reduce_max(pieces.row_lengths())) + 2  # [CLS] text [SEP]
    max_positions = pretrainer.config.max_position_embeddings
    if length > max_positions:
        raise ValueError(f"A text is {length} pieces long; the model takes at most {max_positions}.")
    inputs = {name: value.numpy() for name, value in pack_segments(
        pieces, length, tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id).items()}  # one text: any layout
    is_mask = inputs["input_word_ids"] == tokenizer.mask_id  # (batch, length)
    counts = is_mask.sum(axis=1)
    valid = np.arange(counts.max())[None, :] < counts[:, None]  # (batch, slots)
    masked_positions = np.zeros(valid.shape, np.int32)
    masked_positions[valid] = np.nonzero(is_mask)[1]  # row-major: each text's masks in order, then zeros
    outputs = pretrainer(dict(inputs, masked_lm_positions=masked_positions), training=False)
    logits = np.asarray(outputs["mlm_logits"], np.float32)  # (batch, slots, vocab)
    exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = exp / exp.sum(axis=-1, keepdims=True)
    best = np.argsort(-probs, axis=-1)[..., :top_k]
    return [[[(tokenizer.id_to_token(int(t)), float(probs[i, slot, t])) for t in best[i, slot]]
             for slot in range(count)] for i, count in enumerate(counts)]


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
    unmasked = [t for t in texts if "[MASK]" not in t and "<mask>" not in t]  # BERT's or RoBERTa's mask
    if not texts or unmasked:
        raise ValueError(f"query_fill_mask needs one or more texts, each with a [MASK] (<mask>); got {texts!r}.")
    loaded = tf.saved_model.load(os.fspath(export_dir))
    signature = loaded.signatures["serving_default"]
    if "top_k_tokens" not in signature.structured_outputs:
        raise ValueError(
            f"{export_dir} is not a fill-mask SavedModel (its outputs are "
            f"{sorted(signature.structured_outputs)}); export a BertPretrainer with a tokenizer.")
    outputs = signature(text_a=tf.constant(texts), text_b=tf.constant([], tf.string))
    positions = outputs["masked_lm_positions"].numpy()
    tokens, probabilities = outputs["top_k_tokens"].numpy(), outputs["top_k_probabilities"].numpy()
    return [[[(t.decode("utf-8"), float(p)) for t, p in zip(tokens[row, slot], probabilities[row, slot])]
             for slot in range(positions.shape[1]) if positions[row, slot] >= 0]  # per [MASK]: (token, probability)
            for row in range(len(texts))]


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
    report = export_saved_model(pretrainer, export_dir, tokenizer=tokenizer, seq_length=seq_length,
                         top_k=top_k, overwrite=overwrite)
    write_models_config(base_dir)
    return {"export_dir": export_dir, "version": version, "report": report,
            "answers": query_fill_mask(export_dir, query)}
