"""Stops `fit` once the optimizer has taken a given number of steps."""

import keras


class StepLimit(keras.callbacks.Callback):
    """Ends training when `optimizer.iterations` reaches `total_steps`.

    Training is driven by the optimizer step (it survives restarts), while Keras
    counts epochs; this lets the last epoch be shorter than `steps_per_epoch`.

    Args:
        total_steps: the step to stop at.

    Example:
        >>> model.fit(dataset, steps_per_epoch=100, epochs=10, callbacks=[StepLimit(950)])
    """

    def __init__(self, total_steps):
        super().__init__()
        self.total_steps = int(total_steps)

    def on_train_batch_end(self, batch, logs=None):
        if int(self.model.optimizer.iterations.numpy()) >= self.total_steps:
            self.model.stop_training = True
