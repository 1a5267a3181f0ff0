"""RunFolder: a folder with another run's checkpoints is refused; changed settings are noted."""

import json

import pytest
import tensorflow as tf

from keras_bert.training import RunFolder


def _checkpoint(folder):
    checkpoint = tf.train.Checkpoint(step=tf.Variable(1))
    tf.train.CheckpointManager(checkpoint, folder.checkpoint_dir, max_to_keep=1).save()


def test_identity_is_checked_and_settings_may_change(tmp_path, capsys):
    folder = RunFolder(tmp_path, {"hidden_size": 16, "task": {"labels": ["a", "b"]}}, {"lr": 1.0})
    folder.check()
    folder.write()
    RunFolder(tmp_path, {"hidden_size": 32}, {}).check()  # no checkpoints yet: nothing to mix up
    _checkpoint(folder)
    resumed = RunFolder(tmp_path, folder.identity, {"lr": 2.0})
    resumed.check()
    resumed.check_resumable(start_step=1, total_steps=10)
    assert "changed settings lr 1.0 -> 2.0" in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"holds a finished run made with other settings \(lr 1.0 -> 2.0\)"):
        resumed.check_resumable(start_step=10, total_steps=10)
    with pytest.raises(ValueError, match=r"different model \(hidden_size: 16 there vs 32 now, "
                                         r"task.labels: \['a', 'b'\] there vs None now\)"):
        RunFolder(tmp_path, {"hidden_size": 32}, {}).check()
    assert json.loads((tmp_path / "run_config.json").read_text())["settings"] == {"lr": 1.0}
    (tmp_path / "run_config.json").unlink()
    with pytest.raises(ValueError, match="run_config.json is missing"):
        folder.check()


def test_a_jax_runs_numpy_checkpoints_count_as_checkpoints(tmp_path):
    """ArrayCheckpointManager's .npz files (JAX) are listed by the same index: the identity is checked."""
    import keras

    from keras_bert.training import ArrayCheckpointManager

    folder = RunFolder(tmp_path, {"hidden_size": 16}, {})
    folder.write()
    ArrayCheckpointManager([keras.Variable(1.0)], folder.checkpoint_dir).save(1)
    with pytest.raises(ValueError, match=r"different model \(hidden_size: 16 there vs 32 now\)"):
        RunFolder(tmp_path, {"hidden_size": 32}, {}).check()
