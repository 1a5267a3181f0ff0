"""The accuracy a masked LM gets without reading the text: always the most frequent masked token."""

import collections

import numpy as np


def unigram_mlm_accuracy(batches):
    """Accuracy of always guessing the most frequent masked token of `batches` (its own labels).

    The bar a pretrained model's MLM accuracy on the same batches must clear to show it
    uses the context: counted over the masked slots as `BertPretrainer`'s `mlm_accuracy` is
    (slots weighted by `masked_lm_weights`).

    Args:
        batches: an iterable of `(features, labels)` pretraining batches, e.g.
            `pretraining_input(...)(batch_size).take(n)`.

    Returns:
        `(accuracy, token_id)`; `(0.0, None)` if no slot is masked.

    Example:
        >>> unigram_mlm_accuracy(eval_input(32).take(8))
        (0.061, 1010)
    """
    counts = collections.Counter()
    for _, labels in batches:
        ids = np.asarray(labels["masked_lm_ids"]).ravel()
        weights = np.asarray(labels["masked_lm_weights"]).ravel()
        for token, weight in zip(ids[weights > 0].tolist(), weights[weights > 0].tolist()):
            counts[token] += weight
    if not counts:
        return 0.0, None
    token, count = counts.most_common(1)[0]
    return count / sum(counts.values()), token
