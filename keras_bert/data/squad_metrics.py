"""The official SQuAD exact-match and F1 metrics (evaluate-v1.1.py, with v2.0's no-answer rule)."""

import collections
import re
import string

_PUNCTUATION = set(string.punctuation)


def normalize_answer(text):
    """Lowercases and removes punctuation, the articles a/an/the and extra whitespace (official rule).

    Args:
        text: an answer string.

    Example:
        >>> normalize_answer("The  Analytical Engine!")
        'analytical engine'
    """
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def exact_match_score(prediction, ground_truth):
    """1.0 if the normalized strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(ground_truth))


def f1_score(prediction, ground_truth):
    """Token-overlap F1 of the normalized strings.

    Two empty answers (a correct "no answer" in SQuAD v2.0) score 1; one empty answer scores 0.

    Example:
        >>> f1_score("the Chrysler Building", "Chrysler Building in New York City")
        0.5
    """
    prediction_tokens = normalize_answer(prediction).split()
    truth_tokens = normalize_answer(ground_truth).split()
    if not prediction_tokens or not truth_tokens:
        return float(prediction_tokens == truth_tokens)
    common = collections.Counter(prediction_tokens) & collections.Counter(truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = num_same / len(prediction_tokens)
    recall = num_same / len(truth_tokens)
    return 2 * precision * recall / (precision + recall)


def squad_evaluate(predictions, examples):
    """Exact match and F1 in percent, each the best over a question's gold answers, averaged.

    A question with no prediction scores 0 (as in the official script). A SQuAD v2.0
    question without an answer has the gold answer "".

    Args:
        predictions: dict `qas_id -> predicted answer text` (e.g. from `squad_postprocess`).
        examples: the `SquadExample`s from `squad_examples`.

    Returns:
        `{"exact_match": float, "f1": float}`, both in [0, 100].

    Example:
        >>> squad_evaluate({"q1": "Ada"}, [SquadExample("q1", "Who?", "Ada wrote it.", "Ada", 0, ("Ada",))])
        {'exact_match': 100.0, 'f1': 100.0}
    """
    if not examples:
        raise ValueError("squad_evaluate needs at least one example; got none.")
    exact_match = f1 = 0.0
    for example in examples:
        if example.qas_id not in predictions:
            continue
        prediction = predictions[example.qas_id]
        truths = list(example.answers) or [""]
        exact_match += max(exact_match_score(prediction, truth) for truth in truths)
        f1 += max(f1_score(prediction, truth) for truth in truths)
    return {"exact_match": 100.0 * exact_match / len(examples), "f1": 100.0 * f1 / len(examples)}
