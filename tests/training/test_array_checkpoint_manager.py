"""ArrayCheckpointManager: numbered NumPy checkpoints, the newest kept, an index written last, shapes checked."""

import os

import keras
import numpy as np
import pytest

from keras_bert.training.array_checkpoint_manager import ArrayCheckpointManager, checkpoint_paths


def test_saves_keeps_the_newest_and_restores_by_position(tmp_path):
    weights = [keras.Variable(np.zeros((2, 3), "float32")), keras.Variable(np.int64(0))]
    manager = ArrayCheckpointManager(weights, tmp_path, max_to_keep=2)
    for step in (1, 2, 3):
        weights[0].assign(np.full((2, 3), step, "float32"))
        weights[1].assign(step)
        assert manager.save(step) == os.path.join(str(tmp_path), f"ckpt-{step}")
    assert checkpoint_paths(str(tmp_path)) == [os.path.join(str(tmp_path), f"ckpt-{s}") for s in (2, 3)]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.npz", "ckpt-3.npz"]
    (tmp_path / "ckpt-4.npz_temp").write_bytes(b"cut off")  # a write killed before its rename: never listed
    assert checkpoint_paths(str(tmp_path))[-1].endswith("ckpt-3")
    manager.read(os.path.join(str(tmp_path), "ckpt-2"))
    np.testing.assert_array_equal(np.asarray(weights[0]), np.full((2, 3), 2.0))
    assert int(np.asarray(weights[1])) == 2
    other = ArrayCheckpointManager([keras.Variable(np.zeros((3, 2), "float32")), weights[1]], tmp_path)
    with pytest.raises(ValueError, match=r"has shape \(2, 3\) there, \(3, 2\) in this model"):
        other.read(os.path.join(str(tmp_path), "ckpt-3"))
    with pytest.raises(ValueError, match="holds 2 variables; this model and optimizer have 1"):
        ArrayCheckpointManager(weights[:1], tmp_path).read(os.path.join(str(tmp_path), "ckpt-3"))
