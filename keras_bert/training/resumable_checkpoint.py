"""Atomic, resumable training checkpoints (model, optimizer, dropout RNG): tf.train.CheckpointManager on
TensorFlow, `ArrayCheckpointManager` on JAX."""

import contextlib
import glob
import os
import shutil

import keras

from keras_bert.training.array_checkpoint_manager import ArrayCheckpointManager, checkpoint_paths, write_index


class ResumableCheckpoint(keras.callbacks.Callback):
    """Saves the whole training state at every epoch end; `restore()` resumes from the newest.

    The state is every model variable (weights and the dropout layers' RNG state)
    and every optimizer variable (step counter, moments, loss scale), written with `tf.train.CheckpointManager`
    (on JAX, whose variables are no `tf.Variable`s: `ArrayCheckpointManager`, NumPy files). Both write a
    checkpoint's files first and only then rewrites the small `checkpoint` index
    file by atomic rename, so a checkpoint cut off mid-write (kill, full disk) is
    never listed and the previous one stays the latest. `restore()` also
    verifies what it reads and falls back to an older checkpoint if the newest
    is unreadable (e.g. truncated after the fact).

    Call `restore()` after building and compiling the model (it builds the
    optimizer). Under MultiWorkerMirroredStrategy every worker must save; only
    the chief keeps its files (`is_chief=False` writes to a scratch folder).

    Args:
        directory: folder for `ckpt-<step>.*` files and the `checkpoint` index.
        model: the compiled model.
        max_to_keep: checkpoints kept (>= 2 keeps a fallback).
        is_chief: whether this worker keeps its checkpoints.
        every_n_epochs: save at the end of every n-th epoch.
        every_n_steps: also save every n optimizer steps (0: epoch ends only).
        save_on_train_end: also save when `fit` ends (e.g. after the last step).

    Example:
        >>> checkpoint = ResumableCheckpoint("run/checkpoints", model)
        >>> step = checkpoint.restore()  # 0 when starting fresh
        >>> model.fit(dataset, callbacks=[checkpoint], ...)
    """

    def __init__(self, directory, model, max_to_keep=3, is_chief=True, every_n_epochs=1,
                 every_n_steps=0, save_on_train_end=True):
        super().__init__()
        if int(max_to_keep) < 1:
            raise ValueError(f"max_to_keep (keep_checkpoints, --keep_checkpoints) must be >= 1, got {max_to_keep}.")
        self.directory = os.fspath(directory)
        self.max_to_keep = int(max_to_keep)
        self.is_chief = bool(is_chief)
        self.every_n_epochs = max(1, int(every_n_epochs))
        self.every_n_steps = int(every_n_steps or 0)
        self.save_on_train_end = save_on_train_end
        self._model = model
        self._manager = None
        self.last_saved_step = None

    def _setup(self):
        if self._manager is not None:
            return
        model = self.model
        if model.optimizer is None:
            raise ValueError("ResumableCheckpoint needs a compiled model (model.compile(optimizer=...)).")
        if not model.optimizer.built:  # (on JAX the run loop builds it in its distribution's scope)
            strategy = getattr(model, "distribute_strategy", None)
            with strategy.scope() if strategy is not None else contextlib.nullcontext():
                model.optimizer.build(model.trainable_variables)
        # Keyed by position: variable paths carry process-wide counters (a second
        # optimizer is "adam_w_1", dropout RNGs "seed_generator_7") that differ between
        # runs. The order is fixed by the architecture, and the shapes are checked.
        self._write_directory = (self.directory if self.is_chief
                                 else os.path.join(self.directory, f".scratch_{os.getpid()}"))
        if keras.backend.backend() != "tensorflow":  # a JAX process other than 0 gathers along and writes nothing
            self._write_directory = self.directory if self.is_chief else None
            self._checkpoint = self._manager = ArrayCheckpointManager(
                list(model.variables) + list(model.optimizer.variables), self._write_directory,
                max_to_keep=self.max_to_keep)
            return
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        self._checkpoint = tf.train.Checkpoint(
            model=list(model.variables), optimizer=list(model.optimizer.variables))
        self._manager = tf.train.CheckpointManager(
            self._checkpoint, self._write_directory, max_to_keep=self.max_to_keep, checkpoint_name="ckpt")

    @property
    def step(self):
        return int(self.model.optimizer.iterations.numpy())  # (`model` syncs JAX's state)

    def checkpoints(self):
        """Paths of the complete checkpoints, oldest first (from the atomic `checkpoint` index)."""
        if keras.backend.backend() != "tensorflow":
            return checkpoint_paths(self.directory)
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        state = tf.train.get_checkpoint_state(self.directory)
        if state is None:
            return []
        # get_checkpoint_state already joins the index's relative names to `directory` (joining
        # again broke every resume in a relative --output_dir such as README's runs/finetune).
        return list(state.all_model_checkpoint_paths) or [state.model_checkpoint_path]

    def restore(self):
        """Loads the newest readable checkpoint; returns its step (0 if there is none).

        Raises:
            ValueError: checkpoints exist but none can be read into this model.
        """
        self._setup()
        paths = self.checkpoints()
        if self.is_chief:
            # Leftovers of writes that were cut off; they are never listed, just clutter.
            for stale in glob.glob(os.path.join(self.directory, "*_temp*")):
                if os.path.isdir(stale):
                    shutil.rmtree(stale, ignore_errors=True)
                else:
                    os.remove(stale)
        errors = []
        for path in reversed(paths):
            try:
                # expect_partial: values restored later (optimizer slots on the first step) or not
                # at all (`save_counter` of tf.train.Checkpoint) are not warned about at exit.
                if isinstance(self._checkpoint, ArrayCheckpointManager):
                    self._checkpoint.read(path)
                else:
                    self._checkpoint.read(path).assert_existing_objects_matched().expect_partial()
            except Exception as e:  # pylint: disable=broad-except  # corrupt files raise many kinds
                errors.append(f"{os.path.basename(path)}: {type(e).__name__}: {str(e)[:300]}")
                print(f"Checkpoint {path} is unreadable ({type(e).__name__}); trying an older one.")
                continue
            self.last_saved_step = self.step
            return self.step
        if errors:
            raise ValueError(
                f"None of the checkpoints in {self.directory} could be restored into this model:\n"
                + "\n".join(errors) + "\nDelete the folder to start over, or point --output_dir "
                "at the run these checkpoints belong to.")
        return 0

    def save(self):
        """Writes a checkpoint numbered by the optimizer step; returns its path (chief) or None."""
        self._setup()
        step = self.step
        path = self._manager.save(checkpoint_number=step)
        self.last_saved_step = step
        if not self.is_chief:
            if self._write_directory is not None:
                shutil.rmtree(self._write_directory, ignore_errors=True)
            return None
        return path

    def discard_from(self, step):
        """Deletes the checkpoints of `step` and later (weights a diverged step already produced);
        returns the step of the newest one left (0 if none). Only the chief deletes."""
        self._setup()
        paths = self.checkpoints()
        kept = [p for p in paths if int(p.rsplit("-", 1)[-1]) < step]
        if self.is_chief and len(kept) < len(paths):
            for path in set(paths) - set(kept):
                for file in glob.glob(path + ".*"):
                    os.remove(file)
            write_index(self.directory, kept)  # the index CheckpointManager writes, replaced atomically
            self._manager = None  # its list of checkpoints is stale
            self._setup()
        self.last_saved_step = int(kept[-1].rsplit("-", 1)[-1]) if kept else 0
        return self.last_saved_step

    def on_train_batch_end(self, batch, logs=None):
        if self.every_n_steps and self.step % self.every_n_steps == 0:
            self.save()

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every_n_epochs == 0 and self.last_saved_step != self.step:
            self.save()

    def on_train_end(self, logs=None):
        if self.save_on_train_end and self.last_saved_step != self.step:
            self.save()
