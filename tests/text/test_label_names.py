"""text/label_names.py: the one label-name rule (stripped, one visible line, no separator, each name once)."""

import pytest

from keras_bert.text.label_names import label_name, label_vocabulary_names


def test_a_name_is_stripped_and_numbers_become_text():
    assert label_name(" pos ", "--labels") == "pos" and label_name(3, "line 2 of 'a.csv'") == "3"


@pytest.mark.parametrize("value, separator, fragment", [
    ("  ", None, "label '  ' is empty"),
    ("a\nb", None, "contains the control character '\\n'"),
    ("a\u2028b", None, "contains the control character"),
    ("sports|arts", "|", "must not contain the separator '|' (--separator)"),
])
def test_a_name_that_cannot_round_trip_is_one_line_naming_where(value, separator, fragment):
    with pytest.raises(ValueError) as error:
        label_name(value, "line 3 of 'train.csv'", separator)
    assert str(error.value).startswith("line 3 of 'train.csv': ") and fragment in str(error.value)


def test_a_vocabulary_is_distinct_stripped_names():
    assert label_vocabulary_names([" neg", "pos "]) == ["neg", "pos"]


@pytest.mark.parametrize("labels, fragment", [
    ("neg pos", "expected a list of label names"),
    ([",", " "], "names no label"),
    (["neg", " neg"], "lists a name twice (neg)"),
])
def test_a_bad_vocabulary_is_refused_naming_the_flag(labels, fragment):
    with pytest.raises(ValueError, match="^labels= \\(--labels\\)") as error:
        label_vocabulary_names(labels)
    assert fragment in str(error.value)
