"""squad_postprocess: gold one-hot logits give the gold answers; the span rules of run_squad.py."""

import numpy as np
import pytest

from keras_bert.data.squad_answers import squad_postprocess
from keras_bert.data.squad_metrics import squad_evaluate
from tests.data.squad_helpers import one_hot_logits


def test_postprocess_one_hot_gold_logits(v1, v2):
    examples, features = v1
    predictions = squad_postprocess(features, *one_hot_logits(features))
    assert predictions == {e.qas_id: e.answer_text for e in examples}
    assert squad_evaluate(predictions, examples) == {"exact_match": 100.0, "f1": 100.0}

    examples, features = v2
    predictions = squad_postprocess(features, *one_hot_logits(features), version_2_with_negative=True)
    assert predictions == {e.qas_id: e.answer_text for e in examples}
    assert predictions["photo-2"] == predictions["ada-3"] == ""
    assert squad_evaluate(predictions, examples) == {"exact_match": 100.0, "f1": 100.0}
    # Without the v2.0 null rule every question gets some span.
    forced = squad_postprocess(features, *one_hot_logits(features))
    assert forced["photo-2"] != "" and forced["photo-1"] == "the chloroplasts"


def test_postprocess_rules(v1):
    examples, features = v1
    start_logits, end_logits = one_hot_logits(features)
    # max_answer_length: "330 metres (1,083 ft)" is 9 pieces; a limit of 3 rejects the gold span.
    predictions = squad_postprocess(features, start_logits, end_logits, max_answer_length=3)
    assert predictions["eiffel-3"] != "330 metres (1,083 ft)"
    assert len(predictions["eiffel-3"].split()) <= 3
    # A span in the question (not the context) is never chosen.
    i = int(np.nonzero(features["example_index"] == 7)[0][0])
    bad_start, bad_end = start_logits.copy(), end_logits.copy()
    bad_start[i, 1] = bad_end[i, 2] = 10.0
    assert squad_postprocess(features, bad_start, bad_end)["ada-2"] == "1815–1852"
    with pytest.raises(ValueError, match="shuffle=False"):
        squad_postprocess(features, start_logits[:-1], end_logits[:-1])
