"""StepLimit: fit stops at the optimizer step, also inside an epoch."""

import keras
import numpy as np

from keras_bert.training import StepLimit


def test_fit_stops_at_the_optimizer_step():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((12, 2), "float32"), np.ones((12, 1), "float32")
    model.fit(x, y, batch_size=2, epochs=10, callbacks=[StepLimit(5)], verbose=0)  # 6 steps per epoch
    assert int(model.optimizer.iterations.numpy()) == 5
    model.fit(x, y, batch_size=2, epochs=10, callbacks=[StepLimit(8)], verbose=0)  # resumed: 3 more
    assert int(model.optimizer.iterations.numpy()) == 8
