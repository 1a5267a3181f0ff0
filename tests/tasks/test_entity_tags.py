"""tasks/entity_tags.py: how a tag reads, in BIO, BIOES and plain IO schemes."""

import pytest

from keras_bert.tasks.entity_tags import split_tag


@pytest.mark.parametrize("tag, expected", [
    ("B-PER", ("B", "PER")), ("I-LOC", ("I", "LOC")), ("E-ORG", ("E", "ORG")), ("S-MISC", ("S", "MISC")),
    ("O", ("O", "")), ("PER", ("I", "PER")), ("X-PER", ("I", "X-PER")), ("B-", ("B", "")), ("B", ("I", "B")),
])
def test_split_tag(tag, expected):
    assert split_tag(tag, "O") == expected


def test_the_outside_label_is_the_tasks_own():
    assert split_tag("NONE", "NONE") == ("O", "") and split_tag("O", "NONE") == ("I", "O")
