"""SquadExample: an unanswerable question's defaults; examples are immutable values."""

import dataclasses

import pytest

from keras_bert.data.squad_example import SquadExample


def test_defaults_describe_a_question_without_an_answer():
    example = SquadExample("q1", "Who?", "Nobody is named here.")
    assert (example.answer_text, example.answer_start, example.answers) == ("", -1, ())
    assert not example.is_impossible and example.title == ""
    assert example == SquadExample("q1", "Who?", "Nobody is named here.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        example.answer_text = "x"
