"""Bad input to the packer and its callers: one row per case, a one-line error, never a crash.

Before the packer checked batch sizes, text_a and text_b of different sizes killed the process
(SIGSEGV, exit code 139) in the trimmer.
"""

import os

import pytest
import tensorflow as tf

from keras_bert.data.classification import num_classes
from keras_bert.text import Preprocessor, Tokenizer
from keras_bert.text.packer import pack_segments


@pytest.fixture(scope="module")
def preprocessor(minilm_dir):
    return Preprocessor(Tokenizer(os.path.join(minilm_dir, "vocab.txt")), seq_length=8)


def _graph(p, a, b):  # a tf.function with unknown batch sizes
    spec = tf.TensorSpec([None], tf.string)
    return tf.function(p.__call__, input_signature=[spec, spec])(tf.constant(a), tf.constant(b))


def _dataset(p, a, b):
    return next(iter(tf.data.Dataset.from_tensors((a, b)).map(p)))


CASES = [  # (name, call, error type, message fragment)
    ("batch sizes differ", lambda p: p(["a b", "c"], ["x"]), ValueError,
     "text_a has 2 rows but text_b has 1"),
    ("empty text_b", lambda p: p(["a"], []), ValueError, "text_a has 1 rows but text_b has 0"),
    ("batch sizes differ in a tf.function", lambda p: _graph(p, ["a b", "c"], ["x"]),
     tf.errors.InvalidArgumentError, "text_a and text_b must have the same batch size"),
    ("batch sizes differ in tf.data", lambda p: _dataset(p, ["a b", "c"], ["x"]),
     tf.errors.InvalidArgumentError, "text_a and text_b must have the same batch size"),
    ("vector text_a, scalar text_b", lambda p: p(["a", "b"], "x"), ValueError,
     "text_a has shape (2,) but text_b has shape ()"),
    ("numbers as text", lambda p: p([1, 2]), ValueError, "text_a must hold strings"),
    ("matrix of text", lambda p: p([["a"], ["b"]]), ValueError,
     "text_a must be a string or a [batch] vector"),
    ("three segments", lambda p: p.pack([tf.ragged.constant([[1]])] * 3), ValueError, "1 or 2 segments"),
    ("pair in seq_length 2", lambda p: pack_segments([tf.ragged.constant([[1]])] * 2, 2, 101, 102),
     ValueError, "seq_length=2 is too small for a text pair"),
    ("unknown truncation", lambda p: Preprocessor(p.tokenizer, truncation="middle"), ValueError,
     "truncation='middle' is not supported"),
    ("regression labels for a classifier", lambda p: num_classes(None, "sts.tsv"), ValueError,
     "'sts.tsv' has float labels"),
]


@pytest.mark.parametrize("name, call, error, fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_a_clear_error(preprocessor, name, call, error, fragment):
    with pytest.raises(error) as raised:
        call(preprocessor)
    assert fragment in str(raised.value), (name, str(raised.value)[:300])
