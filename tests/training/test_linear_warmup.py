"""LinearWarmup: a straight ramp from 0 to the wrapped schedule, serializable."""

import keras
import pytest

from keras_bert.training import LinearWarmup, bert_schedule


def test_linear_warmup_serializes():
    schedule = bert_schedule(2e-5, total_steps=50, warmup_steps=5)
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert isinstance(restored, LinearWarmup)
    for step in (0, 3, 5, 20, 50):
        assert float(restored(step)) == pytest.approx(float(schedule(step)))


def test_ramps_to_a_constant_rate_and_refuses_negative_warmup():
    schedule = LinearWarmup(0.5, warmup_steps=4)
    assert [float(schedule(s)) for s in (0, 1, 2, 4, 100)] == [0.0, 0.125, 0.25, 0.5, 0.5]
    assert float(LinearWarmup(0.5, warmup_steps=0)(0)) == 0.5
    with pytest.raises(ValueError, match="warmup_steps must be >= 0, got -1"):
        LinearWarmup(0.5, warmup_steps=-1)
