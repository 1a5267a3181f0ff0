"""The official SQuAD EM / F1, worked by hand."""

import pytest

from keras_bert.data.squad_example import SquadExample
from keras_bert.data.squad_metrics import f1_score, normalize_answer, squad_evaluate


def test_metric():
    example = SquadExample("q", "Which building?", "...", "the Chrysler Building in New York City", 0,
                           ("the Chrysler Building in New York City", "Chrysler Building"))
    assert normalize_answer("The  Chrysler-Building, in N.Y.!") == "chryslerbuilding in ny"
    assert squad_evaluate({"q": "chrysler building"}, [example]) == {"exact_match": 100.0, "f1": 100.0}
    assert squad_evaluate({"q": "Empire State"}, [example]) == {"exact_match": 0.0, "f1": 0.0}
    # Against gold 2: "empire state building" vs "chrysler building": 1 common token, P = 1/3,
    # R = 1/2, F1 = 2 * (1/3 * 1/2) / (1/3 + 1/2) = 0.4; gold 1 gives P = 1/3, R = 1/6 -> 2/9.
    scores = squad_evaluate({"q": "the Empire State Building"}, [example])
    assert scores["exact_match"] == 0.0
    assert scores["f1"] == pytest.approx(40.0)
    assert f1_score("the Empire State Building", "the Chrysler Building in New York City") == pytest.approx(2 / 9)
    # Missing predictions count as 0; a v2.0 "no answer" gold matches only "".
    impossible = SquadExample("none", "Why?", "...", is_impossible=True)
    assert squad_evaluate({"none": ""}, [example, impossible]) == {"exact_match": 50.0, "f1": 50.0}
    assert squad_evaluate({"none": "something"}, [impossible]) == {"exact_match": 0.0, "f1": 0.0}
