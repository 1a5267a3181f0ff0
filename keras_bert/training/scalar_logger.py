"""TensorBoard scalars written with TensorFlow's core summary ops (no `tensorboard` package needed)."""

import os

import keras
import tensorflow as tf
from tensorflow.core.framework import summary_pb2

# What tensorboard's `tf.summary.scalar` writes: a float tensor tagged for the
# "scalars" plugin. TensorFlow 2.21 no longer installs the tensorboard package
# (so Keras's TensorBoard callback fails); `tf.summary.write` is TensorFlow core.
_SCALAR_METADATA = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))


class ScalarLogger(keras.callbacks.Callback):
    """Writes training metrics (every `every_n_steps` steps) and epoch/validation means for TensorBoard.

    The x axis is the optimizer step, so a resumed run continues its curves
    instead of starting over at 0. Train values go to `log_dir/train`, held-out
    values to `log_dir/validation`; view with `tensorboard --logdir log_dir`.

    Args:
        log_dir: folder for the event files.
        every_n_steps: write the train metrics (Keras's running epoch means) this often.

    Example:
        >>> model.fit(dataset, callbacks=[ScalarLogger("run/logs")], ...)
    """

    def __init__(self, log_dir, every_n_steps=10):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.every_n_steps = max(1, int(every_n_steps))
        self._writers = {}

    def _writer(self, name):
        if name not in self._writers:
            self._writers[name] = tf.summary.create_file_writer(os.path.join(self.log_dir, name))
        return self._writers[name]

    def _write(self, name, logs, prefix=""):
        step = int(self.model.optimizer.iterations.numpy())
        with self._writer(name).as_default():
            for key, value in (logs or {}).items():
                tf.summary.write(prefix + key, tf.constant(float(value), tf.float32), step=step,
                                 metadata=_SCALAR_METADATA)
            learning_rate = getattr(self.model.optimizer, "learning_rate", None)
            if name == "train" and learning_rate is not None:
                tf.summary.write("learning_rate", tf.cast(learning_rate, tf.float32), step=step,
                                 metadata=_SCALAR_METADATA)

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations.numpy())
        if step % self.every_n_steps == 0:
            self._write("train", logs, "step/")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self._write("train", {k: v for k, v in logs.items() if not k.startswith("val_")}, "epoch/")
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if validation:
            self._write("validation", validation, "epoch/")
        for writer in self._writers.values():
            writer.flush()

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
