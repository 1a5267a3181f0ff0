"""Parity of a keras_bert encoder with Hugging Face `transformers.BertModel` on real text."""

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
    """Max abs differences between `encoder` and `transformers.BertModel` (PyTorch, CPU).

    Tokenizes with `transformers.BertTokenizerFast` from `reference_dir`, pads
    each batch on the right, and runs both models: single sentences in one
    batch, sentence pairs in another. Needs `torch` and `transformers`.

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

    tokenizer = transformers.BertTokenizerFast.from_pretrained(reference_dir)
    reference = transformers.BertModel.from_pretrained(reference_dir).eval()
    batches = []
    if sentences:
        batches.append(tokenizer(list(sentences), padding=True, return_tensors="np"))
    if pairs:
        batches.append(tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True,
                                 return_tensors="np"))
    diffs = {"sequence_output": 0.0, "pooled_output": 0.0, "num_examples": 0}
    for batch in batches:
        inputs = {"input_word_ids": batch["input_ids"].astype("int32"),
                  "input_mask": batch["attention_mask"].astype("int32"),
                  "input_type_ids": batch["token_type_ids"].astype("int32")}
        ours = encoder(inputs, training=False)
        with torch.no_grad():
            theirs = reference(**{k: torch.from_numpy(v.astype("int64")) for k, v in batch.items()})
        for key, value in (("sequence_output", theirs.last_hidden_state),
                           ("pooled_output", theirs.pooler_output)):
            diff = np.max(np.abs(np.asarray(ours[key], "float32") - value.numpy()))
            diffs[key] = max(diffs[key], float(diff))
        diffs["num_examples"] += len(batch["input_ids"])
    return diffs
