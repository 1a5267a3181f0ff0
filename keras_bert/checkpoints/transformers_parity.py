"""Parity of a keras_bert encoder with Hugging Face `transformers` (its family's `AutoModel`) on real text."""

import numpy as np

SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "BERT reads text in both directions at once.",
    "Shall I compare thee to a summer's day?",
    "Hi.",
)
PAIRS = (
    ("How old are you?", "I am six years old and I live in a yellow submarine."),
    ("The cat sat on the mat.", "It was warm."),
    ("Where is the train station?", "Turn left at the second traffic light, then walk straight on."),
)


def compare_with_transformers(encoder, reference_dir, sentences=SENTENCES, pairs=PAIRS):
    """Max abs differences between `encoder` and `transformers.AutoModel` (BertModel, RobertaModel, ...; PyTorch, CPU).

    Tokenizes with `transformers.AutoTokenizer` from `reference_dir`, pads
    each batch on the right, and runs both models: single sentences in one
    batch, sentence pairs in another; outputs are compared on real tokens (a family
    such as RoBERTa gives padded tokens other positions). Needs `torch` and `transformers`.

    Args:
        encoder: a `BertEncoder` (e.g. from `load_checkpoint(reference_dir)`).
        reference_dir: a Hugging Face BERT folder with config.json,
            model.safetensors and vocab.txt or tokenizer.json.
        sentences: texts to encode one by one.
        pairs: (first, second) segment pairs.

    Returns:
        dict with "sequence_output" and "pooled_output" (max abs difference over
        every position of every batch) and "num_examples".

    Example:
        >>> diffs = compare_with_transformers(load_checkpoint(minilm_dir, model="encoder"), minilm_dir)  # doctest: +SKIP
        >>> diffs["sequence_output"] < 1e-4  # doctest: +SKIP
        True
    """
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(reference_dir)
    reference = transformers.AutoModel.from_pretrained(reference_dir).eval()
    batches = []
    if sentences:
        batches.append(tokenizer(list(sentences), padding=True, return_tensors="np"))
    if pairs:
        batches.append(tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True,
                                 return_tensors="np"))
    diffs = {"sequence_output": 0.0, "pooled_output": 0.0, "num_examples": 0}
    for batch in batches:
        types = batch.get("token_type_ids")
        if types is None or encoder.config.type_vocab_size == 1:  # one token type (RoBERTa): all zeros
            types = np.zeros_like(batch["input_ids"])
        inputs = {"input_word_ids": batch["input_ids"].astype("int32"),
                  "input_mask": batch["attention_mask"].astype("int32"),
                  "input_type_ids": types.astype("int32")}
        ours = encoder(inputs, training=False)
        with torch.no_grad():
            theirs = reference(**{k: torch.from_numpy(v.astype("int64")) for k, v in batch.items()
                                  if k in ("input_ids", "attention_mask") or encoder.config.type_vocab_size > 1})
        real = batch["attention_mask"].astype(bool)
        for key, value in (("sequence_output", theirs.last_hidden_state),
                           ("pooled_output", getattr(theirs, "pooler_output", None))):
            if value is None:  # a family without a pooler (ELECTRA, DistilBERT)
                continue
            mine, value = np.asarray(ours[key], "float32"), value.numpy()
            if key == "sequence_output":
                mine, value = mine[real], value[real]
            diffs[key] = max(diffs[key], float(np.max(np.abs(mine - value))))
        diffs["num_examples"] += len(batch["input_ids"])
    return diffs
