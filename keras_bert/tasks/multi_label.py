"""Multi-label classification: a text (or pair) -> a set of labels; a sigmoid per label, F1 and exact match."""

import math

import numpy as np

from keras_bert.tasks.regression import text_signature
from keras_bert.tasks.task import Task, collect


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
        labels: the label vocabulary, in output order (None: the training file's, sorted).
        separator: what joins the labels of one example in the label column.
        threshold: probability at which a label is predicted, in (0, 1); saved with the model,
            so serving and evaluation use the same one.

    Example:
        >>> task = MultiLabelTask(tokenizer, 128, 32, label="topics", threshold=0.4)
        >>> train = task.read("train.csv", training=True)
    """

    name = "multi_label"
    OPTION_HELP = {"text_a": "column of the (first) text",
                   "text_b": "column of the second text of a pair (default: single texts)",
                   "label": "column of each example's labels, joined by --separator (empty: none)",
                   "labels": "label vocabulary, in output order (default: sorted from the training file)",
                   "separator": "what joins one example's labels in the label column",
                   "threshold": "probability at which a label is predicted, in (0, 1)"}

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0, *, text_a: str = "sentence",
                 text_b: str = None, label: str = "label", labels: list = None, separator: str = "|",
                 threshold: float = 0.5):
        super().__init__(tokenizer, seq_length, batch_size, seed)
        for option, value in (("text_a", text_a), ("label", label), ("separator", separator)):
            if not value or not isinstance(value, str):
                raise ValueError(f"{option}={value!r} (--{option}) must be a non-empty string.")
        try:
            threshold = float(threshold)
        except (TypeError, ValueError):
            threshold = math.nan
        if not 0 < threshold < 1:
            raise ValueError(f"threshold={threshold} (--threshold) must be a probability strictly "
                             "between 0 and 1, e.g. 0.5.")
        self.text_a, self.text_b, self.label = text_a, text_b or None, label
        self.separator, self.threshold = separator, threshold
        self.labels = None if labels is None else _checked_vocabulary(labels, separator)

    def _label_sets(self, path, values):
        """Each row's label names, or a one-line error naming the row."""
        sets = []
        for row_number, value in enumerate(values, start=1):
            if isinstance(value, list):
                names = [str(v).strip() for v in value]
            elif isinstance(value, (str, int)) and not isinstance(value, bool):
                names = [name.strip() for name in str(value).split(self.separator)]
            else:
                raise ValueError(f"Row {row_number} of {path!r} has {self.label} {value!r}; expected "
                                 f"labels joined by {self.separator!r} (--separator) or a JSON list.")
            sets.append(sorted({name for name in names if name}))
        return sets

    def read(self, path, training):
        from keras_bert.data.classification import read_text_rows, text_dataset
        from keras_bert.text.preprocessor import Preprocessor

        texts_a, texts_b, values = read_text_rows(path, self.text_a, self.text_b, self.label)
        sets = self._label_sets(path, values)
        if training and self.labels is None:  # the one label vocabulary, train and eval
            self.labels = sorted({name for names in sets for name in names})
        if not self.labels:
            raise ValueError(f"{path}: no example has a label in column {self.label!r} (--label); "
                             f"label sets are joined by {self.separator!r} (--separator).")
        index = {name: i for i, name in enumerate(self.labels)}
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

        return build_classifier(encoder, len(self.labels), name="bert_multi_label_classifier", task=self.name,
                                task_config=task_config)

    def model_options(self):
        return dict(super().model_options(), labels=self.labels, text_a=self.text_a, text_b=self.text_b,
                    label=self.label, separator=self.separator, threshold=self.threshold)

    def compile_kwargs(self):
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        logit = math.log(self.threshold / (1 - self.threshold))  # the threshold on the logits
        return {"loss": keras.losses.BinaryCrossentropy(from_logits=True),
                "metrics": [keras.metrics.BinaryAccuracy(name="label_accuracy", threshold=logit)]}

    def evaluate(self, model, evaluation, path):
        return multi_label_metrics(collect(evaluation, 1), model.predict(evaluation, verbose=0), self.threshold)

    def identity(self):
        return dict(super().identity(), text_a=self.text_a, text_b=self.text_b, label=self.label,
                    labels=self.labels, separator=self.separator, threshold=self.threshold)

    # ----- Serving: sigmoid probabilities from ids; the label set from text (SavedModel, TFLite) and ids (ONNX).

    tflite_signatures = ("classify_multi_label",)

    @classmethod
    def check_serving(cls, model, task_config):
        super().check_serving(model, task_config)  # one label name per output
        threshold = task_config.get("threshold", 0.5)
        if not 0 < threshold < 1:
            raise ValueError(f"Model {model.name!r} carries threshold={threshold}; a multi-label "
                             "threshold is a probability strictly between 0 and 1.")

    @classmethod
    def serving_outputs(cls, outputs, task_config):
        import tensorflow as tf

        return {"logits": outputs, "probabilities": tf.sigmoid(outputs)}

    @classmethod
    def text_signatures(cls, module, task_config):
        """`classify_multi_label` (with label names): `text_a` (and `text_b` for a pair model) ->
        `label_sets`' outputs."""
        labels = task_config.get("labels")
        if labels is None:
            return {}
        threshold = task_config.get("threshold", 0.5)
        return text_signature(module, task_config, "classify_multi_label",
                              lambda outputs: label_sets(outputs["probabilities"], labels, threshold))

    @classmethod
    def answer_from_ids(cls, module, inputs, outputs, task_config):
        labels = task_config.get("labels")
        if labels is None:
            return {}
        return label_sets(outputs["probabilities"], labels, task_config.get("threshold", 0.5))


def _checked_vocabulary(labels, separator):
    """`labels` as distinct, non-empty strings without the separator, or a one-line error."""
    names = [str(name).strip() for name in labels]
    bad = [name for name in names if not name or separator in name]
    if bad:
        raise ValueError(f"labels= (--labels) holds {bad!r}: a label name must be non-empty and must not "
                         f"contain the separator {separator!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"labels= (--labels) lists a name twice: {names}; every label must appear once.")
    return names
