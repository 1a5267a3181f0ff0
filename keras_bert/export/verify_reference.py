"""What exported artifacts are checked against: sample inputs and the Keras model's own outputs."""

import numpy as np
import tensorflow as tf

from keras_bert.export.serving_checks import ID_INPUTS

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


def keras_outputs(serving, ids, tokens=True):
    """The served outputs of the Keras model, run as `model.predict` runs it (`serving`, its serving
    object, computes its outputs eagerly on them; fill-mask's top-k in numpy).

    `tokens=False` leaves out the pretrainer's `top_k_tokens` (SavedModel-only output).
    """
    inputs = {name: tf.constant(ids[name], tf.int32) for name in ID_INPUTS}
    # As `model.predict` runs it: one tf.function graph. Op-by-op eager execution differs from
    # that by up to 6e-6 on MiniLM-L6 logits (other kernel choices); predict is the reference.
    # The whole model, not the [CLS]-only path.
    keras_model = tf.function(serving.call_model.call_keras_model, autograph=False)
    return serving.reference_outputs(inputs, keras_model, tokens)


def text_to_ids(serving, text_a, text_b=None):
    """Eager tokenization + packing (the Python path a Keras user runs) -> numpy ids."""
    texts = [text_a] if text_b is None else [text_a, text_b]
    segments = [serving.reference_pieces(t) for t in texts]
    return {name: value.numpy() for name, value in serving.preprocessor.pack(segments).items()}


def sample_ids(serving, texts=None, seed=0):
    """Id inputs for the checks: the sample texts tokenized (trimmed to their longest row), or random ids."""
    if serving.tokenizer is not None:
        if texts is None:
            texts = _own_mask_token(serving, serving.sample_texts or SAMPLE_TEXTS)
        ids = text_to_ids(serving, texts)
        length = max(int(ids["input_mask"].sum(axis=1).max()), 2)
        return {name: value[:, :length] for name, value in ids.items()}
    rng = np.random.default_rng(seed)
    batch, seq = 4, 16
    vocab = serving.call_model.vocab_size or 100
    ids = rng.integers(5, vocab, size=(batch, seq)).astype(np.int32)
    lengths = np.array([seq, seq - 3, 5, 2])
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int32)
    ids = serving.sample_ids(ids)
    ids[:, 0] = 2
    types = ((np.arange(seq)[None, :] >= lengths[:, None] // 2) & (mask == 1)).astype(np.int32)
    types = np.minimum(types, max((serving.call_model.type_vocab_size or 2) - 1, 0))  # one type: RoBERTa
    return {"input_word_ids": ids * mask, "input_mask": mask, "input_type_ids": types}


def text_samples(serving, texts=None):
    """`[(label, {"text_a": ..., ["text_b": ...]}), ...]` for the text signatures."""
    texts = list(texts or _own_mask_token(serving, serving.sample_texts or SAMPLE_TEXTS))
    if not serving.text_pairs:
        return [("text_a", {"text_a": texts})]
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


def _own_mask_token(serving, texts):
    """The sample texts with `[MASK]` written as the tokenizer's mask token (`<mask>`: RoBERTa, XLM-R)."""
    mask = getattr(serving.tokenizer, "mask_token", None) or "[MASK]"
    return [text.replace("[MASK]", mask) for text in texts]
