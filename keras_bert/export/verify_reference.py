"""What exported artifacts are checked against: sample inputs and the Keras model's own outputs."""

import numpy as np
import tensorflow as tf

from keras_bert.export.serving_module import ID_INPUTS
from keras_bert.text.mask_token import MASK_TOKEN

# Real sentences for the checks: plain, accented, empty, and one far longer than any
# seq_length (truncated in the graph).
SAMPLE_TEXTS = (
    "The quick brown fox jumps over the lazy dog.",
    "Shall I compare thee to a summer's day? Thou art more lovely and more temperate.",
    "",
    "Héllo wörld: naïve café owners in Zürich said déjà vu!",
    " ".join(["It was the best of times, it was the worst of times, it was the age of wisdom,"] * 40),
    "BERT reads the whole sentence in both directions at once.",
)
SAMPLE_PAIRS = (
    "A fast brown fox leaps over a sleepy dog.",
    "Rough winds do shake the darling buds of May.",
    "An empty first segment.",
    "",
    "short second segment",
    " ".join(["and the whole thing repeats"] * 60),
)
SAMPLE_MASK_TEXTS = (
    "The capital of France is [MASK].",
    "To be, or not to [MASK], that is the [MASK].",
    "A sentence without any mask token.",
    "[MASK]",
)


def _softmax(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def _keras_model(module):
    # As `model.predict` runs it: one tf.function graph. Op-by-op eager execution differs from
    # that by up to 6e-6 on MiniLM-L6 logits (other kernel choices); predict is the reference.
    return tf.function(module.call_keras_model)  # the whole model, not the served [CLS]-only path


def keras_outputs(module, ids, tokens=True):
    """The task outputs of the Keras model, run as `model.predict` runs it (the task's serving
    outputs computed eagerly on them; the pretrainer's top-k in numpy).

    `tokens=False` leaves out the pretrainer's `top_k_tokens` (SavedModel-only output).
    """
    inputs = {name: tf.constant(ids[name], tf.int32) for name in ID_INPUTS}
    if module.task == "pretrainer":
        return _keras_fill_mask(module, inputs, tokens)
    # The model as `predict` runs it, then the task's serving outputs (e.g. softmax) eagerly.
    served = module.served_outputs(_keras_model(module)(inputs))
    return {name: np.asarray(value) for name, value in served.items()}


def _keras_fill_mask(module, inputs, tokens):
    ids, mask = inputs["input_word_ids"].numpy(), inputs["input_mask"].numpy()
    is_mask = (ids == module.mask_id) & (mask != 0)
    counts = is_mask.sum(axis=1)
    slots = int(counts.max(initial=0))
    positions = np.zeros((ids.shape[0], slots), np.int32)
    for row in range(ids.shape[0]):
        found = np.nonzero(is_mask[row])[0]
        positions[row, :len(found)] = found
    valid = np.arange(slots)[None, :] < counts[:, None]
    logits = _keras_model(module)(dict(inputs, masked_lm_positions=tf.constant(positions)))["mlm_logits"]
    probabilities = _softmax(np.asarray(logits))
    top_ids = np.argsort(-probabilities, axis=-1, kind="stable")[..., :module.top_k].astype(np.int32)
    top_p = np.take_along_axis(probabilities, top_ids, axis=-1)
    outputs = {"masked_lm_positions": np.where(valid, positions, -1),
               "top_k_ids": np.where(valid[..., None], top_ids, -1),
               "top_k_probabilities": np.where(valid[..., None], top_p, 0.0).astype(np.float32)}
    if tokens and module.tokenizer is not None:
        vocab = np.array([t.encode("utf-8") for t in module.tokenizer.vocab], dtype=object)
        outputs["top_k_tokens"] = np.where(valid[..., None], vocab[top_ids], b"").astype(object)
    return outputs


def tokenize_keeping_masks_eager(tokenizer, texts, mask_id):
    """Python reference for the graph's `[MASK]`-aware tokenization: ragged int32 `[batch, (pieces)]`."""
    rows = []
    for text in texts:
        parts = text.split(MASK_TOKEN)
        pieces = tokenizer.tokenize(tf.constant(parts)).to_list()
        row = []
        for i, part in enumerate(pieces):
            row += part + ([mask_id] if i < len(pieces) - 1 else [])
        rows.append(row)
    return tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1)


def text_to_ids(module, text_a, text_b=None):
    """Eager tokenization + packing (the Python path a Keras user runs) -> numpy ids."""
    texts = [text_a] if text_b is None else [text_a, text_b]
    if module.task == "pretrainer":
        segments = [tokenize_keeping_masks_eager(module.tokenizer, list(t), module.mask_id) for t in texts]
    else:
        segments = [module.tokenizer.tokenize(tf.constant(list(t))) for t in texts]
    return {name: value.numpy() for name, value in module.preprocessor.pack(segments).items()}


def sample_ids(module, texts=None, seed=0):
    """Id inputs for the checks: the sample texts tokenized (trimmed to their longest row), or random ids."""
    if module.tokenizer is not None:
        if texts is None:
            texts = SAMPLE_MASK_TEXTS if module.task == "pretrainer" else SAMPLE_TEXTS
        ids = text_to_ids(module, texts)
        length = max(int(ids["input_mask"].sum(axis=1).max()), 2)
        return {name: value[:, :length] for name, value in ids.items()}
    rng = np.random.default_rng(seed)
    batch, seq = 4, 16
    vocab = module.vocab_size or 100
    ids = rng.integers(5, vocab, size=(batch, seq)).astype(np.int32)
    lengths = np.array([seq, seq - 3, 5, 2])
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int32)
    if module.task == "pretrainer":
        ids[:, 1] = module.mask_id
        ids[0, 4] = module.mask_id
    ids[:, 0] = 2
    types = ((np.arange(seq)[None, :] >= lengths[:, None] // 2) & (mask == 1)).astype(np.int32)
    return {"input_word_ids": ids * mask, "input_mask": mask, "input_type_ids": types}


def text_samples(module, texts=None):
    """`[(label, {"text_a": ..., ["text_b": ...]}), ...]` for the text signatures."""
    if module.task == "pretrainer":
        texts = list(texts or SAMPLE_MASK_TEXTS)
        return [("text_a", {"text_a": texts})]
    texts = list(texts or SAMPLE_TEXTS)
    pairs = [SAMPLE_PAIRS[i % len(SAMPLE_PAIRS)] for i in range(len(texts))]
    return [("text_a", {"text_a": texts}), ("text_a+text_b", {"text_a": texts, "text_b": pairs})]


SAMPLE_QUESTION = "What does it say?"


def task_signature_inputs(function, texts=None):
    """Sample inputs for a task's raw-text signature, by its input names: `text_a`, `text`,
    `context` get the sample texts, `text_b` the sample pairs, `question` one question each; any
    string input of shape `[batch, k]` (e.g. candidate endings) three candidates per text."""
    texts = list(texts or SAMPLE_TEXTS)
    pairs = [SAMPLE_PAIRS[i % len(SAMPLE_PAIRS)] for i in range(len(texts))]
    by_name = {"text_a": texts, "text": texts, "context": texts, "text_b": pairs,
               "question": [SAMPLE_QUESTION] * len(texts)}
    for spec in function.input_signature:
        if spec.shape.rank == 2 and spec.dtype.name == "string":
            by_name.setdefault(spec.name, [[pairs[i], texts[(i + 1) % len(texts)], SAMPLE_QUESTION]
                                           for i in range(len(texts))])
    names = [spec.name for spec in function.input_signature]
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(f"No sample inputs for the signature input(s) {unknown}; name text inputs "
                         f"one of {sorted(by_name)}.")
    return {name: np.array(by_name[name], object) for name in names}
