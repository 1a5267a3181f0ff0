"""Sentence classification: a CSV/TSV/JSONL column of text -> one label; accuracy and macro-F1."""

import dataclasses

import numpy as np

from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, check_classes, collect, fitted_labels

PADDINGS = ("dynamic", "full")
AGGREGATES = ("mean", "max")  # what keras_bert.data.text_windows.aggregate_windows does
WINDOW_HELP = {"doc_stride": "long documents: windows of --seq_length whose starts are this many pieces "
                             "apart, each trained with the document's label, their outputs aggregated "
                             "per document in evaluation and serving (default: truncate to --seq_length)",
               "aggregate": "with --doc_stride: how a document's window outputs are combined"}


def check_window_options(doc_stride, text_b=None, task="", aggregate=AGGREGATES[0]):
    """Refuses, in one line naming the flag, a `doc_stride` below 1 or given for pairs, or an `aggregate`
    other than the default without `doc_stride` (it would do nothing; see `WINDOW_HELP`)."""
    if doc_stride is None:
        if aggregate != AGGREGATES[0]:
            raise ValueError(f"aggregate={aggregate!r} (--aggregate) combines the windows of --doc_stride; without "
                             "--doc_stride a text is truncated to one window. Pass --doc_stride or drop --aggregate.")
        return
    if doc_stride < 1:
        raise ValueError(f"doc_stride={doc_stride!r} (--doc_stride) must be a whole number of pieces >= 1, "
                         "e.g. half of --seq_length.")
    if text_b:
        raise ValueError(f"doc_stride={doc_stride} (--doc_stride) windows single texts; task {task!r} "
                         f"reads pairs (text_b={text_b!r}). Drop --doc_stride (pairs are truncated).")


def window_fields():
    """`doc_stride` and `aggregate`, the window options of a task's `Options` (carried only with `doc_stride`)."""
    return (option(None, WINDOW_HELP["doc_stride"], when="doc_stride"),
            option("mean", WINDOW_HELP["aggregate"], choices=AGGREGATES, when="doc_stride"))


def without_document(dataset, doc_stride):
    """`dataset` without the windows' `document` (the model does not take it); unchanged without `doc_stride`."""
    if doc_stride is None:
        return dataset
    from keras_bert.data.text_windows import without_document as drop

    return drop(dataset)


def document_predictions(model, evaluation, task):
    """`(targets, outputs)` of the evaluation set, one row per document: with `doc_stride`, the
    windows' outputs aggregated by `task.aggregate` (`aggregate_windows`; the targets are the
    document's, which each of its windows carries)."""
    if task.doc_stride is None:
        return collect(evaluation, 1), model.predict(evaluation, verbose=0)
    from keras_bert.data.text_windows import aggregate_windows

    outputs = model.predict(without_document(evaluation, task.doc_stride), verbose=0)  # (windows, outputs)
    document = np.concatenate([np.asarray(features["document"]) for features, _ in evaluation])
    targets = collect(evaluation, 1)
    num_documents = int(document.max()) + 1
    return (np.asarray(aggregate_windows(targets, document, num_documents, "max")),
            np.asarray(aggregate_windows(outputs, document, num_documents, task.aggregate)))


def serves_windows(serving, options):
    """Whether `serving` (a serving object) serves long texts in windows: a model trained with `doc_stride`
    (`options`: its `Options`), in the SavedModel. Other exports truncate to `seq_length`: their
    model calls have no `runtime_checks` (TFLite, ONNX, MediaPipe), and the windows need RaggedRange,
    which has no TFLite kernel."""
    return options.doc_stride is not None and serving.runtime_checks


def serve_windows(serving, text_a, options, output):
    """The served `output` (`logits`, `score`) of `[b]` texts of a model served in windows (`serves_windows`):
    each text windowed as in training and its windows' outputs aggregated (`aggregate`), `[b, ...]`."""
    import tensorflow as tf

    from keras_bert.data.text_windows import aggregate_windows, pack_windows

    features, document = pack_windows(serving.tokenizer, text_a, serving.seq_length, options.doc_stride)
    values = serving.outputs_from_ids(features)[output]  # (windows, ...)
    return aggregate_windows(values, document, tf.shape(text_a)[0], options.aggregate)


def text_signature(serving, name, answer, windowed=None):
    """`{name: tf.function}`: raw text in, `answer(serving.serve_text(...))` out. It takes `text_a`, and
    `text_b` too for a model trained on pairs (its `text_b` option), as `classify` does. `windowed(text_a)`:
    the answer of a model served in windows (`serves_windows`; single texts), used in its place."""
    import tensorflow as tf

    options = serving.options
    text = lambda input_name: tf.TensorSpec([None], tf.string, name=input_name)  # noqa: E731
    if windowed is not None and serves_windows(serving, options):
        function, specs = windowed, [text("text_a")]
    elif options.text_b:
        function = lambda text_a, text_b: answer(serving.serve_text(text_a, text_b))  # noqa: E731
        specs = [text("text_a"), text("text_b")]
    else:
        function = lambda text_a: answer(serving.serve_text(text_a, tf.zeros([0], tf.string)))  # noqa: E731
        specs = [text("text_a")]
    function.__name__ = name  # the TFLite signature's name
    return {name: tf.function(function, autograph=False, input_signature=specs)}


def classification_metrics(labels, logits):
    """Accuracy and macro-averaged F1 of argmax predictions.

    The per-class F1 is `keras.metrics.F1Score`'s; the macro average runs over the classes
    that occur in the labels or the predictions (as scikit-learn's `f1_score` does).

    Args:
        labels: int `[n]` gold classes.
        logits: float `[n, classes]`.

    Returns:
        dict with `accuracy`, `macro_f1` and `majority_baseline` (the accuracy of always
        predicting the most frequent gold class).

    Example:
        >>> classification_metrics(np.array([0, 1, 1]), np.array([[2., 0], [0, 1], [3, 0]]))["accuracy"]
        0.6666666666666666
    """
    labels = np.asarray(labels).reshape(-1)
    logits = np.asarray(logits, np.float32).reshape(len(labels), -1)
    predictions = logits.argmax(-1)
    classes = max(logits.shape[1], int(labels.max()) + 1)
    import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

    f1 = keras.metrics.F1Score(average=None, threshold=None)  # threshold None: the argmax is 1
    f1.update_state(np.eye(classes, dtype=np.float32)[labels],
                    np.eye(classes, dtype=np.float32)[predictions])
    present = np.unique(np.concatenate([labels, predictions]))
    return {"accuracy": float(np.mean(predictions == labels)),
            "macro_f1": float(np.mean(np.asarray(f1.result())[present])),
            "majority_baseline": float(np.bincount(labels).max() / len(labels))}


@dataclasses.dataclass(frozen=True)
class ClassificationOptions(TaskOptions):
    """`ClassificationTask`'s options (see its Args)."""

    task_name = "classification"  # errors name the task
    text_a: str = option("sentence", "column of the (first) text")
    label: str = option("label", "column of the label")
    labels: list = option(None, "label vocabulary, in id order (default: sorted from the training file)")
    padding: str = option("dynamic", "dynamic: pad each batch to its longest example and group training "
                          "batches by length; full: pad to --seq_length", model=False, choices=PADDINGS)
    doc_stride: int = window_fields()[0]
    aggregate: str = window_fields()[1]
    # A single-text task reads no second text; its runs' identity says so (pair_classification's flag).
    text_b: str = option(None, "column of the second text", model=False, flag=False)

    def check(self):
        check_window_options(self.doc_stride, self.text_b, self.task_name, self.aggregate)
        if self.labels is not None:  # the one label-name rule (keras_bert.text.label_names), names stripped
            from keras_bert.text.label_names import label_vocabulary_names

            label_vocabulary_names(self.labels)
            self._set("labels", [name.strip() if isinstance(name, str) else name for name in self.labels])


class ClassificationServing(TaskServing):
    """A classifier's serving: `logits`, `probabilities`; with label names, `classify` from raw text (SavedModel,
    TFLite) and `top_label` from ids (ONNX)."""

    name = "classification"
    Options = ClassificationOptions
    tflite_signatures = ("classify",)
    single_text_output = ("classifier", "probabilities")  # MediaPipe's TextClassifier

    def text_signatures(self):
        """`classify` (with label names): `labels`, `probabilities`, `top_label`; it takes `text_a`,
        and `text_b` too for a model trained on pairs (its `text_b` option). A model trained
        with `doc_stride`: the SavedModel's `classify` windows long texts and takes the softmax of
        the aggregated window logits (`serve_windows`); TFLite's truncates to `seq_length`."""
        import tensorflow as tf

        from keras_bert.tasks import task_signatures

        labels = self.options.labels
        if labels is None:
            return {}
        return text_signature(
            self, "classify", lambda outputs: task_signatures.classify(outputs["probabilities"], labels),
            windowed=lambda text_a: task_signatures.classify(
                tf.nn.softmax(serve_windows(self, text_a, self.options, "logits"), axis=-1), labels))

    def answer_outputs(self, inputs, outputs):
        from keras_bert.tasks import task_signatures

        labels = self.options.labels
        return {} if labels is None else task_signatures.classify(outputs["probabilities"], labels)


class ClassificationTask(Task):
    """One text -> one of `labels` (`text_b` set: a pair of texts, see `PairClassificationTask`).

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        text_a, label: the file's columns.
        labels: the label vocabulary, in id order (None: fitted from the training file, `fit_options`).
        padding: "dynamic": each batch padded to its longest example, training batches
            grouped by length (`classification_dataset(dynamic_padding=True)`; the same
            predictions, a fraction of the work on short texts); "full": to `seq_length`.
        doc_stride: None: a text longer than `seq_length` is truncated. A number: long
            documents: a text becomes windows of `seq_length` (`[CLS] window [SEP]`) that start
            `doc_stride` pieces apart (`keras_bert.data.text_windows`). Training: every window is
            an example with its document's label. Evaluation and the served `classify`: the
            windows' logits are aggregated per document (`aggregate`), then the softmax.
        aggregate: with `doc_stride`: "mean" (default) or "max" of the windows' logits.

    Example:
        >>> task = ClassificationTask(tokenizer, 128, 32, labels=["neg", "pos"])
    """

    name = "classification"
    Options = ClassificationOptions
    serving = ClassificationServing
    HF_PROBLEM_TYPE = "single_label_classification"

    def fit_options(self, path):
        """The label vocabulary of the training file `path` (`label_vocabulary`), unless `labels` was given."""
        if self.labels is None:
            from keras_bert.data.classification import file_label_vocabulary, num_classes, read_text_rows

            lines = []
            values = read_text_rows(path, self.text_a, self.text_b, self.label, lines=lines)[2]
            labels = file_label_vocabulary(path, values, lines, self.label)
            num_classes(labels, path)  # refuses float labels (a regression target)
            self.options = self.options.replace(labels=labels)
        return self.options

    def read(self, path, training):
        from keras_bert.data.classification import classification_dataset
        from keras_bert.text.preprocessor import Preprocessor

        dataset, labels = classification_dataset(
            path, Preprocessor(self.tokenizer, self.seq_length), text_a=self.text_a,
            text_b=self.text_b, label=self.label, labels=fitted_labels(self), batch_size=self.batch_size,
            shuffle=training, seed=self.seed, dynamic_padding=self.padding == "dynamic",
            doc_stride=self.doc_stride)
        if training:
            check_classes(path, self.label, collect(dataset, 1), labels)
        return without_document(dataset, self.doc_stride) if training else dataset

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_classifier

        return build_classifier(encoder, len(fitted_labels(self)), task=self.name, task_config=task_config,
                                problem_type=self.HF_PROBLEM_TYPE)

    def validation_data(self, evaluation):
        return without_document(evaluation, self.doc_stride)

    def evaluate(self, model, evaluation, path):
        return classification_metrics(*document_predictions(model, evaluation, self))
