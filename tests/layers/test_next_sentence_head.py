"""NextSentenceHead: the standard layer checks."""

import numpy as np

from keras_bert.layers import NextSentenceHead
from tests.layers.layer_checks import check_layer


def test_next_sentence_head_standard_checks():
    check_layer(lambda: NextSentenceHead(), [np.ones((3, 16), "float32")], (3, 2))
