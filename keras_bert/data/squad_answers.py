"""SQuAD logits back to answer text: run_squad.py's n-best and max-context rules over the
windows `squad_features` made."""

import numpy as np


def squad_postprocess(features, start_logits, end_logits, n_best_size=20, max_answer_length=30,
                      version_2_with_negative=False, null_score_diff_threshold=0.0):
    """Maps start/end logits back to answer text, one answer per question (run_squad.py's rules).

    For every question, the `n_best_size` best starts and ends of each of its windows are
    paired; a pair counts if both are context pieces, the start piece has its maximal
    context in this window, end >= start and it spans at most `max_answer_length` pieces.
    The best-scoring pair (start logit + end logit) over all windows wins, and its text is
    cut from the original context with the pieces' character offsets.

    Args:
        features: the dict from `squad_features`.
        start_logits: float `[n_features, seq_length]`, in the order of `features`.
        end_logits: float `[n_features, seq_length]`.
        n_best_size: starts and ends considered per window.
        max_answer_length: longest answer, in pieces.
        version_2_with_negative: SQuAD v2.0: answer "" when the null score (the smallest
            `[CLS]` start + end logit over the windows) beats the best span by more than
            `null_score_diff_threshold`.
        null_score_diff_threshold: see above.

    Returns:
        dict `qas_id -> answer text`.

    Example:
        >>> outputs = model.predict(squad_dataset(features, shuffle=False))
        >>> predictions = squad_postprocess(features, outputs["start_logits"], outputs["end_logits"])
    """
    start_logits = np.asarray(start_logits, np.float32)
    end_logits = np.asarray(end_logits, np.float32)
    expected = features["input_word_ids"].shape
    for name, logits in (("start_logits", start_logits), ("end_logits", end_logits)):
        if logits.shape != expected:
            raise ValueError(f"{name} has shape {logits.shape} but the features need {expected} "
                             "(one row per feature, in order). Predict on squad_dataset(features, "
                             "shuffle=False, drop_remainder=False).")
    by_example = {}
    for feature_index, example_index in enumerate(features["example_index"]):
        by_example.setdefault(int(example_index), []).append(feature_index)

    predictions = {}
    for example_index, feature_indices in by_example.items():
        best, null_score = None, np.inf
        for f in feature_indices:
            offsets, max_context = features["offsets"][f], features["token_is_max_context"][f]
            null_score = min(null_score, start_logits[f, 0] + end_logits[f, 0])
            starts = np.argsort(-start_logits[f], kind="stable")[:n_best_size]
            ends = np.argsort(-end_logits[f], kind="stable")[:n_best_size]
            for s in starts:
                if offsets[s, 0] < 0 or not max_context[s]:
                    continue
                for e in ends:
                    if offsets[e, 0] < 0 or e < s or e - s + 1 > max_answer_length:
                        continue
                    score = start_logits[f, s] + end_logits[f, e]
                    if best is None or score > best[0]:
                        best = (score, f, s, e)
        f = feature_indices[0]
        text = ""
        if best is not None:
            score, f, s, e = best
            text = features["context"][f][features["offsets"][f][s, 0]:features["offsets"][f][e, 1]]
            if version_2_with_negative and null_score - score > null_score_diff_threshold:
                text = ""
        predictions[features["qas_id"][f]] = text
    return predictions
