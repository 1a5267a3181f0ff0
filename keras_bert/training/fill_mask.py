"""Fill-in-the-mask predictions from a pretrained BERT (the demo after pretraining)."""

import numpy as np
import tensorflow as tf

from keras_bert.text.mask_token import MASK_TOKEN, tokenize_keeping_masks
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
        raise ValueError(f"fill_mask got no texts; pass one or more texts with a {MASK_TOKEN} in each.")
    model_inputs = getattr(pretrainer, "input", None)
    if not (isinstance(model_inputs, dict) and "masked_lm_positions" in model_inputs):
        raise ValueError(f"fill_mask needs a BertPretrainer (masked-LM head); got "
                         f"{type(pretrainer).__name__} {pretrainer.name!r}. Load it with "
                         "load_checkpoint(path, model='pretrainer').")
    for text in texts:
        if MASK_TOKEN not in text:
            raise ValueError(f"fill_mask needs a {MASK_TOKEN} in every text; got {text!r}.")
    pieces = tokenize_keeping_masks(tokenizer, tf.constant(texts), tokenizer.mask_id)
    length = int(tf.reduce_max(pieces.row_lengths())) + 2  # [CLS] text [SEP]
    max_positions = pretrainer.config.max_position_embeddings
    if length > max_positions:
        raise ValueError(f"A text is {length} pieces long; the model takes at most {max_positions}.")
    inputs = {name: value.numpy() for name, value in pack_segments(
        pieces, length, tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id).items()}
    is_mask = inputs["input_word_ids"] == tokenizer.mask_id  # (batch, length)
    per_text = [np.flatnonzero(row).tolist() for row in is_mask]
    slots = max(len(p) for p in per_text)
    masked_positions = np.zeros((len(texts), slots), np.int32)
    for i, p in enumerate(per_text):
        masked_positions[i, :len(p)] = p
    outputs = pretrainer(dict(inputs, masked_lm_positions=masked_positions), training=False)
    logits = np.asarray(outputs["mlm_logits"], np.float32)  # (batch, slots, vocab)
    results = []
    for i, p in enumerate(per_text):
        text_results = []
        for slot in range(len(p)):
            z = logits[i, slot] - logits[i, slot].max()
            probs = np.exp(z) / np.exp(z).sum()
            best = np.argsort(-probs)[:top_k]
            text_results.append([(tokenizer.id_to_token(int(t)), float(probs[t])) for t in best])
        results.append(text_results)
    return results
