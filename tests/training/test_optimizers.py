"""Optimizers and schedules: BERT's warmup + decay shape, weight decay skipping LayerNorm and biases."""

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.training import bert_schedule, create_optimizer


def test_schedule_is_linear_warmup_then_linear_decay_to_zero():
    schedule = bert_schedule(1e-3, total_steps=1000, warmup_steps=100)
    lr = np.array([float(schedule(step)) for step in range(0, 1001)])
    assert lr[0] == 0.0
    # Warmup: a straight line from 0 towards the peak (Google's optimization.py).
    np.testing.assert_allclose(lr[:100], 1e-3 * np.arange(100) / 100, rtol=1e-6, atol=1e-12)
    # Decay: PolynomialDecay(power=1) counted from step 0, reaching 0 at total_steps.
    np.testing.assert_allclose(lr[100:], 1e-3 * (1 - np.arange(100, 1001) / 1000), rtol=1e-5, atol=1e-10)
    assert lr[-1] == 0.0 and lr.max() <= 1e-3
    assert np.all(np.diff(lr[:100]) > 0) and np.all(np.diff(lr[100:]) < 0)


def test_polynomial_power_and_no_warmup():
    schedule = bert_schedule(1.0, total_steps=10, warmup_steps=0, power=2.0)
    np.testing.assert_allclose([float(schedule(s)) for s in (0, 5, 10)], [1.0, 0.25, 0.0], atol=1e-7)


def test_schedule_rejects_bad_lengths():
    with pytest.raises(ValueError, match="warmup_steps"):
        bert_schedule(1e-4, total_steps=10, warmup_steps=20)
    with pytest.raises(ValueError, match="total_steps"):
        bert_schedule(1e-4, total_steps=0)


@pytest.mark.parametrize("name", ["adamw", "lamb"])
def test_weight_decay_skips_layer_norm_and_biases(name):
    """With zero gradients the Adam/LAMB step is 0, so any change is weight decay alone."""
    config = keras_bert.BertConfig(vocab_size=40, hidden_size=16, num_layers=1, num_heads=2,
                                   intermediate_size=32, max_position_embeddings=16)
    model = keras_bert.build_pretrainer(config)
    optimizer = create_optimizer(learning_rate=0.1, optimizer=name, weight_decay=0.5)
    before = {v.path: np.array(v) for v in model.trainable_variables}
    optimizer.apply([keras.ops.zeros_like(v) for v in model.trainable_variables],
                    model.trainable_variables)
    decayed = {v.path for v in model.trainable_variables
               if not np.allclose(np.array(v), before[v.path])}
    kept = set(before) - decayed
    names = {path: path.rsplit("/", 1)[-1] for path in before}
    assert {names[p] for p in kept} == {"gamma", "beta", "bias", "output_bias"}
    assert {names[p] for p in decayed} == {"kernel", "embeddings"}
    for path in decayed:  # decoupled decay: w <- w - lr * wd * w
        variable = next(v for v in model.trainable_variables if v.path == path)
        np.testing.assert_allclose(np.array(variable), before[path] * (1 - 0.1 * 0.5), rtol=1e-5)
    assert any("layer_norm" in p for p in kept) and any("embeddings/" in p for p in decayed)


def test_adamw_uses_bert_settings():
    optimizer = create_optimizer(1e-4, total_steps=100, warmup_steps=10)
    assert isinstance(optimizer, keras.optimizers.AdamW)
    assert (optimizer.beta_1, optimizer.beta_2, optimizer.epsilon) == (0.9, 0.999, 1e-6)
    assert optimizer.weight_decay == 0.01 and optimizer.global_clipnorm == 1.0
    assert isinstance(create_optimizer(optimizer="lamb"), keras.optimizers.Lamb)
    with pytest.raises(ValueError, match="adamw"):
        create_optimizer(optimizer="sgd")


def test_gradients_are_clipped_to_global_norm_one():
    variable = keras.Variable(np.zeros(4, np.float32))
    optimizer = create_optimizer(learning_rate=1.0, weight_decay=0.0, optimizer="adamw")
    optimizer.build([variable])
    grads = optimizer._clip_gradients([keras.ops.convert_to_tensor(np.full(4, 10.0, np.float32))])
    assert float(keras.ops.norm(grads[0])) == pytest.approx(1.0, rel=1e-5)
