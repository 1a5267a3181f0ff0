"""Linear learning-rate warmup in front of any Keras schedule."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_bert")
class LinearWarmup(keras.optimizers.schedules.LearningRateSchedule):
    """Ramps the learning rate linearly from 0, then hands over to `schedule`.

    For `step < warmup_steps` the rate is `schedule(0) * step / warmup_steps`;
    afterwards it is `schedule(step)`. This is Google BERT's `optimization.py`:
    the wrapped schedule counts from step 0, so with
    `PolynomialDecay(peak, decay_steps=total_steps, end_learning_rate=0)` the
    warmup climbs towards `peak` and the linear decay reaches 0 at `total_steps`. Keras has
    warmup only inside `CosineDecay`; BERT's schedule is linear, hence this class.

    Args:
        schedule: a `LearningRateSchedule` (or a float) used after the warmup.
        warmup_steps: number of warmup steps; 0 means no warmup.

    Example:
        >>> decay = keras.optimizers.schedules.PolynomialDecay(1e-4, 1000, end_learning_rate=0.0)
        >>> schedule = LinearWarmup(decay, warmup_steps=100)
        >>> float(schedule(50))
        5e-05
    """

    def __init__(self, schedule, warmup_steps):
        if int(warmup_steps) < 0:
            raise ValueError(f"warmup_steps must be >= 0, got {warmup_steps}.")
        self.schedule = schedule
        self.warmup_steps = int(warmup_steps)

    def _after(self, step):
        if isinstance(self.schedule, keras.optimizers.schedules.LearningRateSchedule):
            return ops.cast(self.schedule(step), "float32")
        return ops.cast(self.schedule, "float32")

    def __call__(self, step):
        step = ops.cast(step, "float32")
        after = self._after(step)
        if self.warmup_steps == 0:
            return after
        warmup_steps = float(self.warmup_steps)
        peak = self._after(0.0)
        return ops.where(step < warmup_steps, peak * step / warmup_steps, after)

    def get_config(self):
        schedule = self.schedule
        if isinstance(schedule, keras.optimizers.schedules.LearningRateSchedule):
            schedule = keras.saving.serialize_keras_object(schedule)
        return {"schedule": schedule, "warmup_steps": self.warmup_steps}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config["schedule"], dict):
            config["schedule"] = keras.saving.deserialize_keras_object(config["schedule"])
        return cls(**config)
