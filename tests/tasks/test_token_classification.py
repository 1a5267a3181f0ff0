"""NER metrics: entity-level (CoNLL / seqeval) F1, not word-level F1.

Golden numbers come from seqeval 1.2.2 (conlleval-compatible default mode), run on its
source archive: `seqeval.metrics.{precision,recall,f1}_score(gold, predicted)` and
`seqeval.metrics.sequence_labeling.get_entities(tags)` on the inputs built below. (Its
PyPI release is a source archive that no longer builds, so it is not a dependency.)
"""

import random

import numpy as np
import pytest

from keras_bert.tasks.token_classification import entity_metrics, entity_spans, token_classification_metrics

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]


def _word_f1(gold, predicted, outside="O"):
    """The old, word-level score: a word counts when its (non-outside) tag is right."""
    pairs = [(g, p) for gs, ps in zip(gold, predicted) for g, p in zip(gs, ps)]
    tp = sum(g == p != outside for g, p in pairs)
    precision = tp / max(1, sum(p != outside for _, p in pairs))
    recall = tp / max(1, sum(g != outside for g, _ in pairs))
    return 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)


@pytest.mark.parametrize("gold, predicted, word_f1, entity", [
    # A two-word name found only by its first word: 2 of 3 entity words right, but
    # only 1 of 2 entities ("Angela Merkel" is missed; "Frankfurt" is right).
    ([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "O", "O", "B-LOC"]], 0.8, (0.5, 0.5, 0.5)),
    # The right span with the wrong type on its second word: two wrong entities.
    ([["B-ORG", "I-ORG", "O"]], [["B-ORG", "I-LOC", "O"]], 0.5, (0.0, 0.0, 0.0)),
    # One three-word entity split in two: every word's tag is right but one.
    ([["B-PER", "I-PER", "I-PER"]], [["B-PER", "I-PER", "B-PER"]], 2 / 3, (0.0, 0.0, 0.0)),
    # Two sentences; the entity in the second is found whole.
    ([["O", "B-LOC"], ["B-ORG", "I-ORG", "O"]], [["O", "O"], ["B-ORG", "I-ORG", "O"]],
     0.8, (1.0, 0.5, 2 / 3)),
])
def test_entity_f1_differs_from_word_f1(gold, predicted, word_f1, entity):
    metrics = entity_metrics(gold, predicted)
    assert _word_f1(gold, predicted) == pytest.approx(word_f1)
    assert (metrics["precision"], metrics["recall"], metrics["f1"]) == pytest.approx(entity)
    assert metrics["f1"] != pytest.approx(word_f1)


@pytest.mark.parametrize("tags, spans", [
    (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 1), ("LOC", 3, 3)]),
    # IOB1: I- starts an entity; B- only separates two adjacent ones of one type.
    (["I-PER", "I-PER", "B-PER", "O", "I-LOC"], [("PER", 0, 1), ("PER", 2, 2), ("LOC", 4, 4)]),
    # A type change inside I- tags ends one entity and starts the next.
    (["O", "I-PER", "B-LOC", "I-LOC", "I-PER"], [("PER", 1, 1), ("LOC", 2, 3), ("PER", 4, 4)]),
    # IOBES.
    (["B-LOC", "E-LOC", "S-PER", "I-ORG", "E-ORG", "O"], [("LOC", 0, 1), ("PER", 2, 2), ("ORG", 3, 4)]),
    (["O", "O"], []),
    ([], []),
])
def test_entity_spans_match_seqeval(tags, spans):
    assert entity_spans(tags) == spans


def _random_corpus(seed, sentences=300):
    """Deterministic (random.Random.random is stable across Python versions) tag sequences."""
    tags = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "E-LOC", "S-PER"]
    rng = random.Random(seed)
    gold, predicted = [], []
    for _ in range(sentences):
        sentence = [tags[int(rng.random() * len(tags))] for _ in range(1 + int(rng.random() * 12))]
        gold.append(sentence)
        predicted.append([t if rng.random() < 0.75 else tags[int(rng.random() * len(tags))]
                          for t in sentence])
    return gold, predicted


@pytest.mark.parametrize("seed, counts, scores", [
    (0, (1540, 1543, 1181), (0.7653920933246922, 0.7668831168831168, 0.7661368796626662)),
    (1, (1542, 1537, 1176), (0.7651268705270007, 0.7626459143968871, 0.7638843780448198)),
])
def test_entity_metrics_match_seqeval_on_random_tags(seed, counts, scores):
    metrics = entity_metrics(*_random_corpus(seed))
    assert (metrics["gold_entities"], metrics["predicted_entities"],
            metrics["correct_entities"]) == counts
    assert (metrics["precision"], metrics["recall"], metrics["f1"]) == pytest.approx(scores, abs=1e-12)


def test_no_entities_anywhere_scores_zero():
    assert entity_metrics([["O", "O"]], [["O", "O"]])["f1"] == 0.0


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="one tag per word"):
        entity_metrics([["O", "B-PER"]], [["O"]])


def _batch(sentences, seq=8):
    """Model-shaped arrays: word labels on first pieces (positions 1, 2, ...), logits one-hot."""
    labels = np.zeros([len(sentences), seq], np.int32)
    weights = np.zeros([len(sentences), seq], np.float32)
    logits = np.zeros([len(sentences), seq, len(LABELS)], np.float32)
    for row, (gold, predicted) in enumerate(sentences):
        for word, (g, p) in enumerate(zip(gold, predicted)):
            labels[row, 1 + word] = LABELS.index(g)
            weights[row, 1 + word] = 1.0
            logits[row, 1 + word, LABELS.index(p)] = 5.0
    return labels, logits, weights


def test_token_classification_metrics_reports_entity_f1_and_word_accuracy():
    sentences = [(["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "O", "O", "B-LOC"]),
                 (["B-ORG", "I-ORG", "O"], ["B-ORG", "I-LOC", "O"])]
    metrics = token_classification_metrics(*_batch(sentences), LABELS)
    assert metrics["accuracy"] == pytest.approx(5 / 7)  # 5 of 7 words tagged right
    # Entities: gold PER, LOC, ORG; predicted PER(0..0), LOC, ORG(0..0), LOC(1..1): 1 right.
    assert metrics["precision"] == pytest.approx(1 / 4)
    assert metrics["recall"] == pytest.approx(1 / 3)
    assert metrics["f1"] == pytest.approx(2 / 7)


def test_words_cut_off_by_seq_length_count_as_missed():
    # The model saw 2 of the sentence's 4 words; the LOC entity in the cut-off tail is missed.
    sentences = [(["B-PER", "I-PER"], ["B-PER", "I-PER"])]
    full = [["B-PER", "I-PER", "O", "B-LOC"]]
    metrics = token_classification_metrics(*_batch(sentences), LABELS, gold_tags=full)
    assert (metrics["precision"], metrics["recall"]) == pytest.approx((1.0, 0.5))
    assert metrics["accuracy"] == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="dataset's order"):
        token_classification_metrics(*_batch(sentences), LABELS, gold_tags=[["O", "O", "O"]])
