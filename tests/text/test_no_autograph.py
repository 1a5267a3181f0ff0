"""no_autograph: the text pipelines of fine-tuning trace as written; autograph rewrites none of their functions.

Autograph keeps each rewritten function as a `__autograph_generated_file*` module in `sys.modules`: building and
iterating the datasets adds none (before, 23 functions of text/ and tensorflow_text were rewritten per process).
"""

import os
import sys

import numpy as np
import tensorflow as tf

from keras_bert.data.classification import classification_dataset
from keras_bert.data.token_classification import token_classification_dataset
from keras_bert.text.no_autograph import no_autograph
from keras_bert.text.preprocessor import Preprocessor

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "fixtures")


def _rewritten():
    return {name for name in sys.modules if name.startswith("__autograph_generated_file")}


def test_a_function_with_python_control_flow_is_rewritten_unless_marked():
    def halve_if_large(x):
        if tf.reduce_sum(x) > 10:  # Python `if` on a tensor: only autograph makes it a graph op
            return x // 2
        return x

    before = _rewritten()
    values = tf.data.Dataset.from_tensor_slices([[4, 4], [8, 8]]).map(halve_if_large)
    assert [v.tolist() for v in values.as_numpy_iterator()] == [[4, 4], [4, 4]]
    assert _rewritten() - before, "autograph rewrote nothing: this test cannot see a rewrite"
    try:
        tf.data.Dataset.from_tensor_slices([[4, 4]]).map(no_autograph(lambda x: halve_if_large(x) + 0))
    except TypeError as error:  # traced as written: a tensor cannot be a Python bool
        assert "bool" in str(error) or "Tensor" in str(error), error
    else:
        raise AssertionError("no_autograph still rewrote the function")


def test_fine_tuning_datasets_rewrite_no_function(tokenizer):
    preprocessor = Preprocessor(tokenizer, seq_length=32)
    before = _rewritten()
    for dynamic_padding in (False, True):
        dataset, _ = classification_dataset(os.path.join(FIXTURES, "sentiment.csv"), preprocessor, batch_size=2,
                                            dynamic_padding=dynamic_padding)
        features, labels = next(iter(dataset))
        assert features["input_word_ids"].shape[0] == 2 and labels.shape == (2,)
    dataset, _ = token_classification_dataset(os.path.join(FIXTURES, "ner.conll"), tokenizer, seq_length=32,
                                              batch_size=2)
    assert np.all(next(iter(dataset))[0]["input_mask"].numpy()[:, 0] == 1)
    assert not {name for name in _rewritten() - before}, "autograph rewrote a text pipeline function"
