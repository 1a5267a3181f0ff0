"""Numbered, atomic checkpoints of a list of Keras variables as NumPy files, for backends without tf.Variables."""

import os
import re

import keras
import numpy as np

INDEX = "checkpoint"  # the same text index tf.train.CheckpointManager keeps, so one reader lists both


class ArrayCheckpointManager:
    """Saves `variables` (by position) to `<directory>/<name>-<number>.npz` and keeps the newest `max_to_keep`.

    What `ResumableCheckpoint` uses on JAX, where the variables are not `tf.Variable`s and
    `tf.train.Checkpoint` cannot hold them. Like TensorFlow's manager, a checkpoint's file is written
    first (to a temporary name, then renamed) and only then the small index, also by atomic rename: a
    write cut off (SIGKILL, full disk) is never listed and the previous checkpoint stays the latest. A
    variable sharded over several processes is gathered first (every process must call `save`).

    Args:
        variables: the Keras variables, in a fixed order (model's, then optimizer's).
        directory: the checkpoint folder (created if needed); None: `save` gathers (a JAX process other than
            process 0 takes part in the collective) and writes nothing.
        max_to_keep: checkpoints kept; older ones are deleted after each save.
        checkpoint_name: the files' prefix.

    Example:
        >>> manager = ArrayCheckpointManager(model.variables + model.optimizer.variables, "run/checkpoints")
        >>> path = manager.save(100)   # run/checkpoints/ckpt-100
        >>> manager.read(path)
    """

    def __init__(self, variables, directory, max_to_keep=2, checkpoint_name="ckpt"):
        self.variables = list(variables)
        self.directory = None if directory is None else os.fspath(directory)
        self.max_to_keep = int(max_to_keep)
        self.checkpoint_name = checkpoint_name

    def save(self, checkpoint_number):
        """Writes the variables as checkpoint `checkpoint_number`; returns its path (without `.npz`), or None
        where there is no `directory`."""
        arrays = {f"v{i}": _host_value(v) for i, v in enumerate(self.variables)}
        if self.directory is None:
            return None
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, f"{self.checkpoint_name}-{int(checkpoint_number)}")
        with open(path + ".npz_temp", "wb") as f:
            np.savez(f, **arrays)
        os.replace(path + ".npz_temp", path + ".npz")
        paths = [p for p in checkpoint_paths(self.directory) if p != path] + [path]
        for old in paths[:-self.max_to_keep]:
            if os.path.exists(old + ".npz"):
                os.remove(old + ".npz")
        write_index(self.directory, paths[-self.max_to_keep:])
        return path

    def read(self, path):
        """Assigns checkpoint `path`'s values to the variables (each placed by its layout)."""
        with np.load(path + ".npz") as data:
            if len(data.files) != len(self.variables):
                raise ValueError(f"{path} holds {len(data.files)} variables; this model and optimizer have "
                                 f"{len(self.variables)}.")
            values = [data[f"v{i}"] for i in range(len(self.variables))]
        for variable, value in zip(self.variables, values):
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(f"{path}: {variable.path} has shape {tuple(value.shape)} there, "
                                 f"{tuple(variable.shape)} in this model.")
        for variable, value in zip(self.variables, values):
            variable.assign(value)


def checkpoint_paths(directory):
    """The listed checkpoints of `directory`'s index, oldest first (paths without a suffix)."""
    try:
        with open(os.path.join(directory, INDEX), encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    names = re.findall(r'^all_model_checkpoint_paths: "(.*)"$', text, re.M)
    names = names or re.findall(r'^model_checkpoint_path: "(.*)"$', text, re.M)
    return [os.path.join(directory, n) for n in names]


def write_index(directory, paths):
    """Replaces `directory`'s index (TensorFlow's text format) by one listing `paths` (the last: newest)."""
    index = os.path.join(directory, INDEX)
    if not paths:
        if os.path.exists(index):
            os.remove(index)
        return
    lines = [f'model_checkpoint_path: "{os.path.basename(paths[-1])}"']
    lines += [f'all_model_checkpoint_paths: "{os.path.basename(p)}"' for p in paths]
    with open(index + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(index + ".tmp", index)


def _host_value(variable):
    value = variable.value
    if keras.backend.backend() == "jax" and not getattr(value, "is_fully_addressable", True):
        from jax.experimental import multihost_utils  # pylint: disable=import-outside-toplevel

        value = multihost_utils.process_allgather(value, tiled=True)
    return np.asarray(value)
