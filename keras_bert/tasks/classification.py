"""Sentence classification: a CSV/TSV/JSONL column of text -> one label; accuracy and macro-F1."""

import numpy as np

from keras_bert.tasks.task import Task, check_classes, collect

PADDINGS = ("dynamic", "full")
AGGREGATES = ("mean", "max")  # what keras_bert.data.text_windows.aggregate_windows does
WINDOW_HELP = {"doc_stride": "long documents: windows of --seq_length whose starts are this many pieces "
                             "apart, each trained with the document's label, their outputs aggregated "
                             "per document in evaluation and serving (default: truncate to --seq_length)",
               "aggregate": "with --doc_stride: how a document's window outputs are combined"}


def check_window_options(doc_stride, aggregate, text_b=None, task=""):
    """`doc_stride` (None or an int >= 1), or a one-line error naming the flag (see `WINDOW_HELP`)."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate={aggregate!r} (--aggregate) is not one of {AGGREGATES}.")
    if doc_stride is None:
        return None
    if isinstance(doc_stride, bool) or not isinstance(doc_stride, int) or doc_stride < 1:
        raise ValueError(f"doc_stride={doc_stride!r} (--doc_stride) must be a whole number of pieces >= 1, "
                         "e.g. half of --seq_length.")
    if text_b:
        raise ValueError(f"doc_stride={doc_stride} (--doc_stride) windows single texts; task {task!r} "
                         f"reads pairs (text_b={text_b!r}). Drop --doc_stride (pairs are truncated).")
    return doc_stride


def window_options(task):
    """The window options a model (`task_config`) and a run (`identity`) carry: none without `doc_stride`."""
    return {} if task.doc_stride is None else {"doc_stride": task.doc_stride, "aggregate": task.aggregate}


def training_windows(dataset, training, doc_stride):
    """The training set without the windows' `document` (the model does not take it)."""
    return without_document(dataset) if training and doc_stride is not None else dataset


def without_document(dataset):
    from keras_bert.data.text_windows import without_document as drop

    return drop(dataset)


def document_predictions(model, evaluation, task):
    """`(targets, outputs)` of the evaluation set, one row per document: with `doc_stride`, the
    windows' outputs aggregated by `task.aggregate` (`aggregate_windows`; the targets are the
    document's, which each of its windows carries)."""
    if task.doc_stride is None:
        return collect(evaluation, 1), model.predict(evaluation, verbose=0)
    from keras_bert.data.text_windows import aggregate_windows

    outputs = model.predict(without_document(evaluation), verbose=0)  # (windows, outputs)
    document = np.concatenate([np.asarray(features["document"]) for features, _ in evaluation])
    targets = collect(evaluation, 1)
    num_documents = int(document.max()) + 1
    return (np.asarray(aggregate_windows(targets, document, num_documents, "max")),
            np.asarray(aggregate_windows(outputs, document, num_documents, task.aggregate)))


def serves_windows(module, task_config):
    """Whether export's `module` serves long texts in windows: a model trained with `doc_stride`, in
    the SavedModel. Other exports truncate to `seq_length`: their modules have no `runtime_checks`
    (TFLite, ONNX, MediaPipe), and the windows need RaggedRange, which has no TFLite kernel."""
    return task_config.get("doc_stride") is not None and module.runtime_checks


def serve_windows(module, text_a, task_config, output):
    """The served `output` (`logits`, `score`) of `[b]` texts: with the model's `doc_stride`, each
    text windowed as in training and its windows' outputs aggregated (`aggregate`), `[b, ...]`;
    None where texts are truncated instead (see `serves_windows`).
    """
    if not serves_windows(module, task_config):
        return None
    import tensorflow as tf

    from keras_bert.data.text_windows import aggregate_windows, pack_windows

    features, document = pack_windows(module.tokenizer, text_a, module.seq_length, task_config["doc_stride"])
    values = module.outputs_from_ids(features)[output]  # (windows, ...)
    return aggregate_windows(values, document, tf.shape(text_a)[0], task_config.get("aggregate", "mean"))


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


class ClassificationTask(Task):
    """One text -> one of `labels` (`text_b` set: a pair of texts, see `PairClassificationTask`).

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        text_a, label: the file's columns.
        labels: the label vocabulary, in id order (None: from the training file).
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
    OPTION_HELP = {"text_a": "column of the (first) text", "label": "column of the label",
                   "labels": "label vocabulary, in id order (default: sorted from the training file)",
                   "padding": "dynamic: pad each batch to its longest example and group training "
                              "batches by length; full: pad to --seq_length"}
    OPTION_HELP.update(WINDOW_HELP)

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0, *, text_a: str = "sentence",
                 label: str = "label", labels: list = None, padding: PADDINGS = "dynamic",
                 doc_stride: int = None, aggregate: AGGREGATES = "mean"):
        super().__init__(tokenizer, seq_length, batch_size, seed)
        if padding not in PADDINGS:
            raise ValueError(f"padding={padding!r} (--padding) is not one of {PADDINGS}.")
        self.text_a, self.label, self.labels, self.padding = text_a, label, labels, padding
        self.doc_stride, self.aggregate = check_window_options(doc_stride, aggregate), aggregate
        self.text_b = None  # PairClassificationTask reads a second text

    def read(self, path, training):
        from keras_bert.data.classification import classification_dataset, num_classes
        from keras_bert.text.preprocessor import Preprocessor

        dataset, labels = classification_dataset(
            path, Preprocessor(self.tokenizer, self.seq_length), text_a=self.text_a,
            text_b=self.text_b, label=self.label, labels=self.labels, batch_size=self.batch_size,
            shuffle=training, seed=self.seed, dynamic_padding=self.padding == "dynamic",
            doc_stride=self.doc_stride)
        if training:  # the one label vocabulary, train and eval
            check_classes(path, self.label, collect(dataset, 1), labels)
            num_classes(labels, path)  # refuses float labels (a regression target)
            self.labels = labels
        return training_windows(dataset, training, self.doc_stride)

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_classifier

        return build_classifier(encoder, len(self.labels), task=self.name, task_config=task_config)

    def model_options(self):
        return dict(super().model_options(), labels=self.labels, text_a=self.text_a, label=self.label,
                    **window_options(self))

    def validation_data(self, evaluation):
        return evaluation if self.doc_stride is None else without_document(evaluation)

    def evaluate(self, model, evaluation, path):
        return classification_metrics(*document_predictions(model, evaluation, self))

    def identity(self):
        return dict(super().identity(), text_a=self.text_a, text_b=self.text_b, label=self.label,
                    labels=self.labels, padding=self.padding, **window_options(self))

    tflite_signatures = ("classify",)
    single_text_output = ("classifier", "probabilities")  # MediaPipe's TextClassifier

    @classmethod
    def text_signatures(cls, module, task_config):
        """`classify` (with label names): `labels`, `probabilities`, `top_label`; it takes `text_a`,
        and `text_b` too for a model trained on pairs (`task_config["text_b"]`). A model trained
        with `doc_stride`: the SavedModel's `classify` windows long texts and takes the softmax of
        the aggregated window logits (`serve_windows`); TFLite's truncates to `seq_length`."""
        import tensorflow as tf

        from keras_bert.tasks import task_signatures

        labels = task_config.get("labels")
        if labels is None:
            return {}
        text = lambda name: tf.TensorSpec([None], tf.string, name=name)  # noqa: E731
        if task_config.get("text_b"):
            def classify(text_a, text_b):  # pylint: disable=function-redefined
                return task_signatures.classify(module.serve_text(text_a, text_b)["probabilities"], labels)

            return {"classify": tf.function(classify, input_signature=[text("text_a"), text("text_b")])}

        def classify(text_a):  # the function's name is the TFLite signature's
            logits = serve_windows(module, text_a, task_config, "logits")  # long texts: doc_stride windows
            if logits is not None:
                return task_signatures.classify(tf.nn.softmax(logits, axis=-1), labels)
            empty = tf.zeros([0], tf.string)
            return task_signatures.classify(module.serve_text(text_a, empty)["probabilities"], labels)

        return {"classify": tf.function(classify, input_signature=[text("text_a")])}

    @classmethod
    def answer_from_ids(cls, module, inputs, outputs, task_config):
        from keras_bert.tasks import task_signatures

        labels = task_config.get("labels")
        return {} if labels is None else task_signatures.classify(outputs["probabilities"], labels)
