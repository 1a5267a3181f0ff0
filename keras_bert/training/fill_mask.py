"""Fill-in-the-mask predictions from a pretrained BERT (the demo after pretraining)."""

import numpy as np

MASK = "[MASK]"


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
    rows, positions = [], []
    for text in texts:
        if MASK not in text:
            raise ValueError(f"fill_mask needs a {MASK} in every text; got {text!r}.")
        ids = [tokenizer.cls_id]
        parts = text.split(MASK)
        for index, part in enumerate(parts):
            if part.strip():
                ids.extend(int(i) for i in tokenizer.tokenize(part).numpy())
            if index < len(parts) - 1:
                positions_here = len(ids)
                ids.append(tokenizer.mask_id)
                positions.append((len(rows), positions_here))
        ids.append(tokenizer.sep_id)
        rows.append(ids)
    max_positions = pretrainer.config.max_position_embeddings
    length = max(len(r) for r in rows)
    if length > max_positions:
        raise ValueError(f"A text is {length} pieces long; the model takes at most {max_positions}.")
    batch = len(rows)
    word_ids = np.zeros((batch, length), np.int32)
    mask = np.zeros((batch, length), np.int32)
    for i, ids in enumerate(rows):
        word_ids[i, :len(ids)] = ids
        mask[i, :len(ids)] = 1
    per_text = [[p for r, p in positions if r == i] for i in range(batch)]
    slots = max(len(p) for p in per_text)
    masked_positions = np.zeros((batch, slots), np.int32)
    for i, p in enumerate(per_text):
        masked_positions[i, :len(p)] = p
    outputs = pretrainer({"input_word_ids": word_ids, "input_mask": mask,
                          "input_type_ids": np.zeros_like(word_ids),
                          "masked_lm_positions": masked_positions}, training=False)
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
