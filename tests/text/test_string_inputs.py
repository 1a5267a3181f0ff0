"""The text the tokenizer and packer take: a rank 0 or 1 tf.string tensor, or one line naming the argument."""

import pytest
import tensorflow as tf

from keras_bert.text.string_inputs import as_strings, id_rows_or_row, strings_or_string


@pytest.mark.parametrize("texts, message", [
    (None, "text_a got None instead of text"),
    (tf.ragged.constant([["a"], ["b", "c"]]), "text_a must be a dense tf.string tensor"),
    ([1, 2], r"text_a must hold strings \(tf.string\), got dtype int32"),
    ([["a"], ["b"]], r"text_a must be a string or a \[batch\] vector of strings, got shape \(2, 1\)"),
])
def test_as_strings_refuses_in_one_line_naming_the_argument(texts, message):
    with pytest.raises(ValueError, match=message):
        as_strings(texts, "text_a")


def test_strings_or_string_takes_a_scalar_and_drops_the_batch_dimension():
    class Lengths:
        @strings_or_string
        def lengths(self, texts):
            return tf.strings.length(texts), tf.strings.upper(texts)

    lengths, upper = Lengths().lengths("abc")
    assert lengths.numpy() == 3 and upper.numpy() == b"ABC"
    assert Lengths().lengths(["a", "bc"])[0].numpy().tolist() == [1, 2]
    with pytest.raises(ValueError, match="Lengths must hold strings"):
        Lengths().lengths([1])


def test_id_rows_or_row_gives_the_method_int32_ragged_rows_and_drops_the_batch_for_one_row():
    class Rows:
        @id_rows_or_row
        def detokenize(self, ids):
            assert isinstance(ids, tf.RaggedTensor) and ids.dtype == tf.int32
            return ids.row_lengths()

    assert Rows().detokenize([[1, 2, 3], [4, 5, 6]]).numpy().tolist() == [3, 3]
    assert Rows().detokenize(tf.ragged.constant([[1], [2, 3]], tf.int64)).numpy().tolist() == [1, 2]
    assert Rows().detokenize([7, 8]).numpy() == 2
    with pytest.raises(ValueError, match=r"detokenize expects ids of rank 1 or 2, got shape \(1, 1, 1\)"):
        Rows().detokenize([[[1]]])
