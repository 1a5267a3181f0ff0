"""Gradient accumulation: one step of 4 micro-batches of 8 equals one step of a batch of 32.

Dropout is off. The pretraining input (tests/training/synthetic.py) masks exactly 3 tokens
in every sequence, so each micro-batch's masked-LM mean (over its own masked positions)
averages to the big batch's mean. Keras's own `gradient_accumulation_steps` is shown to
fail under MirroredStrategy (the reason `accumulate_gradients` exists).
"""

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.training import accumulate_gradients, create_optimizer, set_mixed_precision
from tests.training.synthetic import VOCAB_SIZE, synthetic_input

TINY = keras_bert.BertConfig(vocab_size=VOCAB_SIZE, hidden_size=16, num_layers=1, num_heads=2,
                             intermediate_size=32, max_position_embeddings=16, dropout_rate=0.0,
                             attention_dropout_rate=0.0)


def _one_step(steps, optimizer="adamw", precision="off", jit_compile=False, batch=32):
    set_mixed_precision(precision)
    try:
        keras.utils.set_random_seed(0)
        model = keras_bert.build_pretrainer(TINY)
        # A large rate, so that the update is far from round-off; clipping at norm 1 is active.
        model.compile(optimizer=create_optimizer(1e-2, total_steps=10, warmup_steps=2,
                                                 optimizer=optimizer), jit_compile=jit_compile)
        accumulate_gradients(model, steps)
        data = synthetic_input()(batch).take(1)
        history = model.fit(data, verbose=0)
    finally:
        set_mixed_precision("off")
    return model, history.history


@pytest.mark.parametrize("optimizer, precision, jit_compile, rtol", [
    ("adamw", "off", True, 1e-5), ("lamb", "off", False, 1e-5), ("adamw", "bf16", False, 0.05)])
def test_four_micro_batches_of_8_equal_one_batch_of_32(optimizer, precision, jit_compile, rtol):
    big, big_logs = _one_step(1, optimizer, precision, jit_compile)
    small, small_logs = _one_step(4, optimizer, precision, jit_compile)
    assert int(big.optimizer.iterations) == int(small.optimizer.iterations) == 1
    np.testing.assert_allclose(small_logs["loss"], big_logs["loss"], rtol=max(rtol, 1e-5))
    for a, b in zip(small.trainable_weights, big.trainable_weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol,
                                   atol=1e-6 if precision == "off" else 2e-3, err_msg=b.path)


def test_a_batch_that_steps_do_not_divide_runs_in_one_pass():
    big, _ = _one_step(1, batch=30)
    small, _ = _one_step(4, batch=30)
    for a, b in zip(small.trainable_weights, big.trainable_weights):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_bad_steps_are_refused():
    model = keras_bert.build_pretrainer(TINY)
    model.compile(optimizer=create_optimizer(1e-3))
    with pytest.raises(ValueError, match="gradient_accumulation_steps must be a positive"):
        accumulate_gradients(model, 0)
    model.compile(optimizer=keras.optimizers.SGD(gradient_accumulation_steps=2))
    with pytest.raises(ValueError, match="use one of the two"):
        accumulate_gradients(model, 2)


def test_keras_own_accumulation_fails_under_mirrored_strategy():
    """Keras 3.15: its update step's merge_call sits inside an `ops.cond`, which tf.distribute
    refuses. If this starts passing, Keras's own accumulation may serve (check its schedule)."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.SGD(0.1, gradient_accumulation_steps=2),
                      loss="mse", jit_compile=False)
    x = np.ones([8, 4], np.float32)
    with pytest.raises(RuntimeError, match="merge_call"):
        model.fit(x, x[:, :1], batch_size=4, verbose=0)


@pytest.mark.slow
def test_a_resumed_accumulating_run_ends_with_the_uninterrupted_weights(tmp_path):
    """K = 2 with dropout on: the step, data position and dropout RNG resume exactly (bitwise)."""
    from keras_bert.training import RunConfig, StepLimit, run_pretraining

    config = TINY.replace(dropout_rate=0.1, attention_dropout_rate=0.1)
    options = dict(global_batch_size=8, train_steps=6, steps_per_epoch=2, learning_rate=1e-3,
                   plot=False, tensorboard=False)
    # XLA off: not about XLA (accumulation under XLA: test_four_micro_batches_of_8_equal_one_batch_of_32, adamw)
    run = RunConfig(strategy="default", gradient_accumulation_steps=2, jit_compile="off", verbose=0)
    whole = run_pretraining(synthetic_input(), config, run=run.replace(output_dir=tmp_path / "whole"),
                            **options)
    cut = run.replace(output_dir=tmp_path / "cut")
    part = run_pretraining(synthetic_input(), config, run=cut, callbacks=[StepLimit(3)], **options)
    assert part["step"] == 3
    resumed = run_pretraining(synthetic_input(), config, run=cut, **options)
    assert (resumed["start_step"], resumed["step"]) == (3, 6)
    for a, b in zip(resumed["model"].weights, whole["model"].weights):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=b.path)
