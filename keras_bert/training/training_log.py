"""Per-step training log: the values the progress bar shows, with the optimizer step, as CSV."""

import csv
import os

import keras

from keras_bert.data.csv_rows import read_csv_rows


class TrainingLog(keras.callbacks.Callback):
    """Records `logs` after every train step (and validation results) against the optimizer step.

    Keras reports each metric as its running mean since the start of the epoch,
    so the row at a step holds the mean over the epoch so far; the last row of
    an epoch is that epoch's mean. Rows are appended to a CSV file; a resumed
    run first drops rows past the step it resumed from, so the file always
    describes one consistent run.

    Args:
        path: CSV file to write, or None to keep the rows in memory only.
        start_step: the step training (re)starts from.

    Example:
        >>> log = TrainingLog("run/training_log.csv")
        >>> model.fit(dataset, callbacks=[log], ...)
        >>> log.rows[-1]["loss"]
    """

    def __init__(self, path=None, start_step=0):
        super().__init__()
        self.path = os.fspath(path) if path else None
        self.start_step = int(start_step)
        self.rows = []  # dicts: step, epoch, kind ("train"/"epoch_end"/"validation"), metrics
        if self.path and os.path.exists(self.path):
            with open(self.path, newline="", encoding="utf-8") as f:
                self.rows = [self._parse(row) for row in read_csv_rows(f)[0]]
            self.rows = [row for row in self.rows if row["step"] <= self.start_step]
            self._rewrite()

    @staticmethod
    def _parse(row):
        parsed = {}
        for key, value in row.items():
            if key == "kind":
                parsed[key] = value
            elif value not in ("", None):
                parsed[key] = int(float(value)) if key in ("step", "epoch") else float(value)
        return parsed

    def _columns(self):
        head = ["step", "epoch", "kind"]
        return head + sorted({k for row in self.rows for k in row} - set(head))

    def _rewrite(self):
        if not self.path:
            return
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=self._columns())
            writer.writeheader()
            writer.writerows(self.rows)
        os.replace(tmp, self.path)

    def _add(self, kind, logs):
        row = {"step": int(self.model.optimizer.iterations.numpy()), "epoch": self._epoch, "kind": kind}
        row.update({k: float(v) for k, v in (logs or {}).items()
                    if not k.startswith("val_") or kind == "validation"})
        self.rows.append(row)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._add("train", logs)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self._add("epoch_end", {k: v for k, v in logs.items() if not k.startswith("val_")})
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if validation:
            self._add("validation", validation)
        self._rewrite()

    def on_train_end(self, logs=None):
        self._rewrite()
