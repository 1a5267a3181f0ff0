"""The divergence guard: a non-finite loss stops a run (no NaN checkpoint, no final model) or,
with on_nonfinite="skip", its update is skipped and the run finishes with finite weights."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.training import RunConfig, run_finetuning, run_pretraining
from tests.conftest import run_tool
from tests.training.synthetic import VOCAB_SIZE, synthetic_input

X, Y = np.random.default_rng(0).normal(size=(16, 4)).astype("float32"), np.arange(16) % 2
X_NAN = X.copy()
X_NAN[8:12] = np.nan  # the third batch of 4: step 3 of every epoch has a NaN loss
TINY = keras_bert.BertConfig(vocab_size=VOCAB_SIZE, hidden_size=16, num_layers=1, num_heads=2,
                             intermediate_size=32, max_position_embeddings=16)


def _build():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])


def _finetune(x, output_dir, on_nonfinite="stop", learning_rate=1e-2, accumulation=1):
    dataset = tf.data.Dataset.from_tensor_slices((x, Y)).batch(4)
    return run_finetuning(_build, dataset, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                          epochs=2, learning_rate=learning_rate, identity={"task": "toy"},
                          run=RunConfig(output_dir=output_dir, strategy="default", jit_compile="off",
                                        verbose=0, checkpoint_every_steps=1, keep_checkpoints=10,
                                        on_nonfinite=on_nonfinite,
                                        gradient_accumulation_steps=accumulation))


def _checkpoint_steps_all_finite(directory):
    """The steps of the checkpoints in `directory`, after checking every tensor in them is finite."""
    state = tf.train.get_checkpoint_state(str(directory))
    paths = list(state.all_model_checkpoint_paths) if state else []
    for path in paths:
        reader = tf.train.load_checkpoint(path)
        for name, dtype in reader.get_variable_to_dtype_map().items():
            if dtype.is_floating:
                assert np.isfinite(reader.get_tensor(name)).all(), (path, name)
    return [int(p.rsplit("-", 1)[1]) for p in paths]


def test_a_nan_loss_stops_finetuning_keeps_the_good_checkpoints_and_writes_no_model(tmp_path):
    with pytest.raises(ValueError) as info:
        _finetune(X_NAN, tmp_path)
    message = str(info.value)
    assert "\n" not in message
    for fragment in ("step 3", "nan", "--learning_rate", "step 2", "kept", "--on_nonfinite skip"):
        assert fragment in message, (fragment, message)
    assert not (tmp_path / "model.keras").exists()
    assert _checkpoint_steps_all_finite(tmp_path / "checkpoints") == [1, 2]


def test_a_huge_learning_rate_stops_finetuning(tmp_path):
    with pytest.raises(ValueError, match=r"diverged at step \d+: .*Lower --learning_rate"):
        _finetune(X * 1e3, tmp_path, learning_rate=1e38)
    assert not (tmp_path / "model.keras").exists()
    _checkpoint_steps_all_finite(tmp_path / "checkpoints")


@pytest.mark.parametrize("accumulation", [1, 2])
def test_skip_leaves_the_weights_unchanged_on_a_nan_step_and_finishes(tmp_path, accumulation, capsys):
    model, _ = _finetune(X_NAN, tmp_path, on_nonfinite="skip", accumulation=accumulation)
    assert int(model.optimizer.iterations.numpy()) == 8
    assert all(np.isfinite(w).all() for w in model.get_weights())
    assert (tmp_path / "model.keras").exists()
    assert "update was skipped" in capsys.readouterr().out
    assert _checkpoint_steps_all_finite(tmp_path / "checkpoints")[-1] == 8
    # The skipped step changed nothing: checkpoints 2 and 3 hold the same weights and slots.
    before, after = (tf.train.load_checkpoint(str(tmp_path / "checkpoints" / f"ckpt-{s}")) for s in (2, 3))
    for name, dtype in before.get_variable_to_dtype_map().items():
        if dtype.is_floating and name.startswith("model/"):
            np.testing.assert_array_equal(before.get_tensor(name), after.get_tensor(name), err_msg=name)


def test_on_nonfinite_is_checked():
    with pytest.raises(ValueError, match=r"on_nonfinite='keep' \(--on_nonfinite\)"):
        RunConfig(on_nonfinite="keep")


def _pretrain(output_dir, **kwargs):
    options = dict(global_batch_size=8, train_steps=6, steps_per_epoch=3, learning_rate=1e-3)
    options.update(kwargs)
    run = RunConfig(output_dir=output_dir, strategy="default", verbose=0,
                    on_nonfinite=options.pop("on_nonfinite", "stop"))
    return run_pretraining(synthetic_input(), TINY, run=run, plot=False, **options)


def test_a_diverging_pretraining_run_writes_no_final_and_keeps_the_good_checkpoint(tmp_path):
    with pytest.raises(ValueError) as info:
        _pretrain(tmp_path, train_steps=50, steps_per_epoch=1, learning_rate=1e9, warmup_steps=0)
    message = str(info.value)
    assert "diverged at step" in message and "--learning_rate" in message, message
    assert not os.path.exists(tmp_path / "final")
    steps = _checkpoint_steps_all_finite(tmp_path / "checkpoints")
    # The loss explodes (finite) first; the checkpoint of the step before held the weights that made it.
    assert "over 1000 times the run's first" in message, message
    if steps:
        assert "(step %d)" % steps[-1] in message, (steps, message)
    else:
        assert "already held the diverged weights and was removed" in message and "no good checkpoint" in message


def test_skip_finishes_a_pretraining_run_with_finite_weights(tmp_path):
    result = _pretrain(tmp_path, train_steps=6, steps_per_epoch=3, learning_rate=1e9, warmup_steps=0,
                       on_nonfinite="skip")
    assert result["step"] == 6 and (tmp_path / "final").exists()
    assert all(np.isfinite(np.asarray(w)).all() for w in result["model"].weights)


def test_finetune_tool_exits_2_in_one_line_and_writes_no_model(tmp_path):
    from tests.reliability.conftest import FIXTURES, assert_one_line_error, write_tiny_checkpoint

    checkpoint = write_tiny_checkpoint(str(tmp_path))
    output_dir = tmp_path / "ft"
    result = run_tool("finetune", "classification", "--checkpoint", checkpoint, "--train_file",
                      os.path.join(FIXTURES, "sentiment.csv"), "--output_dir", str(output_dir),
                      "--epochs", "10", "--batch_size", "2", "--seq_length", "16", "--strategy", "default",
                      "--checkpoint_every_steps", "2", "--learning_rate", "1e6", "--quiet",
                      env={"TF_CPP_MIN_LOG_LEVEL": None}, timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "diverged at step", "the loss is", "--learning_rate", "checkpoint")
    assert not (output_dir / "model.keras").exists() and not (output_dir / "metrics.json").exists()
    _checkpoint_steps_all_finite(output_dir / "checkpoints")
