"""ResumableCheckpoint: full training state round trip, atomic index, fallback past a corrupt file."""

import os

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.training import ResumableCheckpoint, create_optimizer
from tests.training.synthetic import VOCAB_SIZE, synthetic_input

CONFIG = keras_bert.BertConfig(vocab_size=VOCAB_SIZE, hidden_size=16, num_layers=1, num_heads=2,
                               intermediate_size=32, max_position_embeddings=16)


def _model(seed=0):
    keras.utils.set_random_seed(seed)
    model = keras_bert.build_pretrainer(CONFIG)
    model.compile(optimizer=create_optimizer(1e-3, total_steps=100, warmup_steps=2), jit_compile=False)
    return model


def _train(model, steps):
    model.fit(synthetic_input()(8).take(steps), epochs=1, verbose=0)


def _at_step(model, steps):
    """The step counter and optimizer variables a `_train(model, steps)` leaves, without a fit (no train step
    traced): for the tests about files and paths; what a fit changes round-trips in the first test."""
    model.optimizer.build(model.trainable_variables)
    model.optimizer.iterations.assign(steps)


def _state(model):
    return ([(v.path, np.array(v)) for v in model.variables],
            [np.array(v) for v in model.optimizer.variables])


def test_restores_weights_optimizer_and_dropout_rng(tmp_path):
    model = _model()
    checkpoint = ResumableCheckpoint(tmp_path, model)
    assert checkpoint.restore() == 0  # nothing yet
    _train(model, 3)
    path = checkpoint.save()
    assert os.path.basename(path) == "ckpt-3"
    weights, slots = _state(model)
    assert any("seed_generator" in p for p, _ in weights)  # dropout RNG state is part of it

    fresh = _model(seed=1)
    assert checkpoint.__class__(tmp_path, fresh).restore() == 3
    restored_weights, restored_slots = _state(fresh)
    assert len(restored_weights) == len(weights)
    for (_, restored), (path, saved) in zip(restored_weights, weights):
        np.testing.assert_array_equal(restored, saved, err_msg=path)
    for a, b in zip(restored_slots, slots):
        np.testing.assert_array_equal(a, b)
    assert int(fresh.optimizer.iterations.numpy()) == 3


def test_keeps_the_newest_and_falls_back_past_a_corrupt_one(tmp_path, capsys):
    model = _model()
    checkpoint = ResumableCheckpoint(tmp_path, model, max_to_keep=2)
    _train(model, 2)
    checkpoint.save()
    weights_at_2, _ = _state(model)
    _train(model, 2)
    newest = checkpoint.save()
    _train(model, 1)
    checkpoint.save()
    assert [os.path.basename(p) for p in checkpoint.checkpoints()] == ["ckpt-4", "ckpt-5"]
    # Truncate the newest data file, as a crash of the disk (not of our write) would.
    data = checkpoint.checkpoints()[-1] + ".data-00000-of-00001"
    with open(data, "r+b") as f:
        f.truncate(os.path.getsize(data) // 2)
    fresh = _model(seed=1)
    assert ResumableCheckpoint(tmp_path, fresh, max_to_keep=2).restore() == 4
    assert "unreadable" in capsys.readouterr().out
    assert newest.endswith("ckpt-4")
    assert not np.array_equal(_state(fresh)[0][0][1], weights_at_2[0][1])  # not ckpt-2


def test_an_unlisted_partial_write_is_never_read(tmp_path):
    """A write cut off before the atomic index update leaves files that nothing points to."""
    model = _model()
    checkpoint = ResumableCheckpoint(tmp_path, model)
    _at_step(model, 2)
    checkpoint.save()
    # What a kill in the middle of writing ckpt-3 leaves: the temp folder and even a
    # garbage index file with the final name, but the `checkpoint` index still says ckpt-2.
    os.makedirs(tmp_path / "ckpt-3_temp" / "part-00000-of-00001")
    (tmp_path / "ckpt-3.index").write_bytes(b"\x00garbage")
    fresh = _model(seed=1)
    assert ResumableCheckpoint(tmp_path, fresh).restore() == 2
    assert not (tmp_path / "ckpt-3_temp").exists()  # the chief cleans the leftover


def test_checkpoints_of_another_model_are_refused(tmp_path):
    model = _model()
    ResumableCheckpoint(tmp_path, model).save()
    keras.utils.set_random_seed(0)
    other = keras_bert.build_pretrainer(CONFIG.replace(hidden_size=32, intermediate_size=64))
    other.compile(optimizer=create_optimizer(1e-3))
    with pytest.raises(ValueError, match="could be restored"):
        ResumableCheckpoint(tmp_path, other).restore()


def test_a_relative_directory_resumes(tmp_path, monkeypatch):
    """README's `--output_dir runs/finetune` is relative to where the user runs the tool."""
    monkeypatch.chdir(tmp_path)
    model = _model()
    checkpoint = ResumableCheckpoint(os.path.join("runs", "x", "checkpoints"), model)
    _at_step(model, 2)
    checkpoint.save()
    assert checkpoint.checkpoints() == [os.path.join("runs", "x", "checkpoints", "ckpt-2")]
    assert ResumableCheckpoint(os.path.join("runs", "x", "checkpoints"), _model(seed=1)).restore() == 2
