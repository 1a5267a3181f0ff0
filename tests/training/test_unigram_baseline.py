import numpy as np

from keras_bert.training import unigram_mlm_accuracy


def _batch(ids, weights):
    return {}, {"masked_lm_ids": np.array(ids), "masked_lm_weights": np.array(weights, np.float32)}


def test_unigram_accuracy_counts_only_the_weighted_slots_of_all_batches():
    batches = [_batch([[7, 7, 3], [9, 0, 0]], [[1, 1, 1], [1, 0, 0]]),  # padding slots hold id 0
               _batch([[3, 3, 0]], [[1, 1, 0]])]
    assert unigram_mlm_accuracy(batches) == (3 / 6, 3)
    assert unigram_mlm_accuracy([_batch([[0, 0]], [[0, 0]])]) == (0.0, None)
