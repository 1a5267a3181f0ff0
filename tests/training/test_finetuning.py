"""run_finetuning: writes its run folder, does not retrain a finished run, refuses endless data."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.training import RunConfig, run_finetuning

X, Y = np.random.default_rng(0).normal(size=(16, 4)).astype("float32"), np.arange(16) % 2


def _build():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])


def _run(dataset, output_dir):
    return run_finetuning(_build, dataset, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                          epochs=2, learning_rate=1e-2, identity={"task": "toy"},
                          run=RunConfig(output_dir=output_dir, strategy="default", jit_compile="off", verbose=0))


def test_a_finished_run_is_returned_not_trained_again(tmp_path, capsys):
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    model, history = _run(dataset, tmp_path)
    assert history.start_step == 0 and int(model.optimizer.iterations.numpy()) == 8
    assert (tmp_path / "model.keras").exists() and (tmp_path / "run_config.json").exists()
    again, history = _run(dataset, tmp_path)
    assert history.start_step == 8 and "holds a finished run" in capsys.readouterr().out
    for a, b in zip(model.get_weights(), again.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_endless_data_is_refused():
    endless = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat()
    with pytest.raises(ValueError, match="training dataset must be finite .* pass steps_per_epoch"):
        _run(endless, None)
