"""Multi-label classification: a text (or pair) -> a set of labels; a sigmoid per label, F1 and exact match."""

import dataclasses
import math

import numpy as np

from keras_bert.tasks.classification import text_signature
from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, collect, fitted_labels
from keras_bert.text.label_names import label_vocabulary_names


def _f1(tp, fp, fn):
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0  # nothing gold, nothing predicted: 0 (scikit-learn's)


def multi_label_metrics(targets, logits, threshold=0.5):
    """Micro- and macro-F1, exact match (subset accuracy) of thresholded per-label sigmoids.

    A label is predicted when its probability `sigmoid(logit) >= threshold`. The macro average
    runs over the labels that occur in the targets or the predictions (as `classification_metrics`).

    Args:
        targets: `[n, labels]` 0/1 gold label sets.
        logits: float `[n, labels]`.
        threshold: probability at which a label is predicted.

    Returns:
        dict with `micro_f1`, `macro_f1`, `micro_precision`, `micro_recall`, `exact_match` (share
        of examples whose predicted set equals the gold set), `label_accuracy` (share of correct
        label decisions) and `empty_baseline_exact_match` (exact match of predicting no label).

    Example:
        >>> multi_label_metrics(np.array([[1, 0], [1, 1]]), np.array([[2., -1], [3, -2]]))["exact_match"]
        0.5
    """
    gold = np.asarray(targets).astype(bool)
    logits = np.asarray(logits, np.float64).reshape(gold.shape)
    predicted = 1 / (1 + np.exp(-logits)) >= threshold
    tp = (gold & predicted).sum(0)
    fp = (~gold & predicted).sum(0)
    fn = (gold & ~predicted).sum(0)
    present = (gold | predicted).any(0)
    per_label = [_f1(*counts) for counts in zip(tp, fp, fn)]
    total_tp, total_fp, total_fn = int(tp.sum()), int(fp.sum()), int(fn.sum())
    return {"micro_f1": float(_f1(total_tp, total_fp, total_fn)),
            "macro_f1": float(np.mean(np.asarray(per_label)[present])) if present.any() else 0.0,
            "micro_precision": total_tp / (total_tp + total_fp) if total_tp + total_fp else 0.0,
            "micro_recall": total_tp / (total_tp + total_fn) if total_tp + total_fn else 0.0,
            "exact_match": float(np.mean(np.all(gold == predicted, axis=1))),
            "label_accuracy": float(np.mean(gold == predicted)),
            "empty_baseline_exact_match": float(np.mean(~gold.any(1)))}


def label_sets(probabilities, labels, threshold):
    """`[b, L]` probabilities -> the label set of each example (TF ops: SavedModel, TFLite, ONNX).

    Returns `labels` (string `[b, L]`, the vocabulary), `probabilities`, `predicted` (bool `[b, L]`,
    probability >= threshold, aligned with `labels`), `predicted_labels` (string `[b, L]`: the
    predicted names in vocabulary order, then "") and `num_predicted` (int32 `[b]`).
    """
    import tensorflow as tf

    names = tf.constant(labels)
    count = len(labels)
    batch = tf.shape(probabilities)[0]
    predicted = probabilities >= threshold  # (batch, labels)
    # Predicted labels first, each group in vocabulary order: top-k of a float key (TFLite and
    # ONNX have TopK; neither has a stable argsort).
    key = tf.cast(predicted, tf.float32) * (count + 1) + tf.range(count, 0, -1, dtype=tf.float32)
    order = tf.math.top_k(key, k=count).indices  # (batch, labels)
    num_predicted = tf.reduce_sum(tf.cast(predicted, tf.int32), axis=1)  # (batch,)
    kept = tf.range(count)[tf.newaxis, :] < num_predicted[:, tf.newaxis]  # (batch, labels)
    # Index `count` reads "": no tf.where on strings (TFLite's SelectV2 has no string kernel).
    padded = tf.gather(tf.concat([names, [""]], 0), tf.where(kept, order, count))  # (batch, labels)
    return {"labels": tf.tile(names[tf.newaxis], [batch, 1]), "probabilities": probabilities,
            "predicted": predicted, "predicted_labels": padded, "num_predicted": num_predicted}


@dataclasses.dataclass(frozen=True)
class MultiLabelOptions(TaskOptions):
    """`MultiLabelTask`'s options (see its Args)."""

    text_a: str = option("sentence", "column of the (first) text")
    text_b: str = option(None, "column of the second text of a pair (default: single texts)")
    label: str = option("label", "column of each example's labels, joined by --separator (empty: none)")
    labels: list = option(None, "label vocabulary, in output order (default: sorted from the training file)")
    separator: str = option("|", "what joins one example's labels in the label column")
    threshold: float = option(0.5, "probability at which a label is predicted, in (0, 1)")

    def check(self):
        for name in ("text_a", "label", "separator"):
            if not getattr(self, name):
                raise ValueError(f"{name}={getattr(self, name)!r} (--{name}) must be a non-empty string.")
        if not 0 < self.threshold < 1:
            raise ValueError(f"threshold={self.threshold} (--threshold) must be a probability strictly "
                             "between 0 and 1, e.g. 0.5.")
        self._set("text_b", self.text_b or None)
        if self.labels is not None:  # the one label-name rule (keras_bert.text.label_names)
            self._set("labels", label_vocabulary_names(self.labels, separator=self.separator))


class MultiLabelServing(TaskServing):
    """A multi-label classifier's serving: sigmoid probabilities from ids; the label set from text (SavedModel,
    TFLite) and ids (ONNX)."""

    name = "multi_label"
    Options = MultiLabelOptions
    tflite_signatures = ("classify_multi_label",)

    def serving_outputs(self, outputs):
        import tensorflow as tf

        return {"logits": outputs, "probabilities": tf.sigmoid(outputs)}

    def text_signatures(self):
        """`classify_multi_label` (with label names): `text_a` (and `text_b` for a pair model) ->
        `label_sets`' outputs."""
        options = self.options
        if options.labels is None:
            return {}
        return text_signature(self, "classify_multi_label",
                              lambda outputs: label_sets(outputs["probabilities"], options.labels, options.threshold))

    def answer_outputs(self, inputs, outputs):
        options = self.options
        if options.labels is None:
            return {}
        return label_sets(outputs["probabilities"], options.labels, options.threshold)


class MultiLabelTask(Task):
    """One text (or text pair) -> any subset of `labels` (topics, tags); a sigmoid per label.

    The label column holds each example's labels joined by `separator` ("sports|politics"; an
    empty cell: no label; in JSONL also a list). Trained with binary cross-entropy; a label is
    predicted when its probability reaches `threshold`. Evaluated by micro- and macro-F1 and
    exact match (`multi_label_metrics`). Served as the label set with its scores: the SavedModel's
    `classify_multi_label` (raw text), TFLite's text model and ONNX (`label_sets`).

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        text_a, text_b: the file's text columns (`text_b` None: single texts).
        label: column of the label sets.
        labels: the label vocabulary, in output order (None: the training file's, sorted: `fit_options`).
        separator: what joins the labels of one example in the label column.
        threshold: probability at which a label is predicted, in (0, 1); saved with the model,
            so serving and evaluation use the same one.

    Example:
        >>> task = MultiLabelTask(tokenizer, 128, 32, label="topics", threshold=0.4)
        >>> task.fit_options("train.csv")  # the label vocabulary
        >>> train = task.read("train.csv", training=True)
    """

    name = "multi_label"
    Options = MultiLabelOptions
    serving = MultiLabelServing
    HF_PROBLEM_TYPE = "multi_label_classification"

    def _label_sets(self, path, values, lines):
        """Each row's label names, or a one-line error naming the file, line and label. One rule for
        the CSV form, JSONL lists and --labels (`label_name`): a list element is one label, so one
        holding the separator ("sports|arts") is refused, as --labels refuses it."""
        from keras_bert.text.label_names import label_name

        sets = []
        for line, value in zip(lines, values):
            where = f"Line {line} of {path!r} ({self.label})"
            if isinstance(value, list):
                names = value
            elif isinstance(value, (str, int)) and not isinstance(value, bool):
                names = str(value).split(self.separator)
            else:
                names = [value]
            if any(isinstance(name, bool) or not isinstance(name, (str, int)) for name in names):
                raise ValueError(f"{where} has {self.label} {value!r}; expected labels joined by "
                                 f"{self.separator!r} (--separator) or a JSON list of label names.")
            sets.append(sorted({label_name(name, where, self.separator) for name in names if str(name).strip()}))
        return sets

    def _read_sets(self, path):
        """`(texts_a, texts_b, label sets)` of the file `path`."""
        from keras_bert.data.classification import read_text_rows

        lines = []
        texts_a, texts_b, values = read_text_rows(path, self.text_a, self.text_b, self.label, lines=lines)
        return texts_a, texts_b, self._label_sets(path, values, lines)

    def fit_options(self, path):
        """The label vocabulary of the training file `path` (its label names, sorted), unless `labels` was given."""
        if self.labels is None:
            labels = sorted({name for names in self._read_sets(path)[2] for name in names})
            if not labels:
                raise ValueError(f"{path}: no example has a label in column {self.label!r} (--label); "
                                 f"label sets are joined by {self.separator!r} (--separator).")
            self.options = self.options.replace(labels=labels)
        return self.options

    def read(self, path, training):
        from keras_bert.data.classification import text_dataset
        from keras_bert.text.preprocessor import Preprocessor

        texts_a, texts_b, sets = self._read_sets(path)
        index = {name: i for i, name in enumerate(fitted_labels(self))}
        if training and all(names == sets[0] for names in sets):
            raise ValueError(f"{path}: every training example ({len(sets)}) has the label set {sets[0]} "
                             f"(--label {self.label}); a multi-label classifier needs examples whose label "
                             "sets differ.")
        targets = np.zeros([len(sets), len(self.labels)], np.float32)
        for row_number, names in enumerate(sets, start=1):
            unknown = [name for name in names if name not in index]
            if unknown:
                raise ValueError(f"Row {row_number} of {path!r} has label(s) {unknown}, not in "
                                 f"labels={self.labels} (--labels). Add them there or fix the file.")
            targets[row_number - 1, [index[name] for name in names]] = 1.0
        return text_dataset(Preprocessor(self.tokenizer, self.seq_length), texts_a, texts_b, targets,
                            self.batch_size, training, self.seed)

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_classifier

        return build_classifier(encoder, len(fitted_labels(self)), name="bert_multi_label_classifier", task=self.name,
                                task_config=task_config, problem_type=self.HF_PROBLEM_TYPE)

    def compile_kwargs(self):
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        logit = math.log(self.threshold / (1 - self.threshold))  # the threshold on the logits
        return {"loss": keras.losses.BinaryCrossentropy(from_logits=True),
                "metrics": [keras.metrics.BinaryAccuracy(name="label_accuracy", threshold=logit)]}

    def evaluate(self, model, evaluation, path):
        return multi_label_metrics(collect(evaluation, 1), model.predict(evaluation, verbose=0), self.threshold)
