"""Regression: a CSV/TSV/JSONL text (or text pair) -> one float; MSE, Pearson and Spearman."""

import dataclasses
import math

import numpy as np

from keras_bert.tasks.classification import (check_window_options, document_predictions, serve_windows,
                                             text_signature, window_fields, without_document)
from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task


def _ranks(values):
    """Ranks 1..n of `values`, ties sharing their average rank (as `scipy.stats.rankdata`)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.concatenate([[True], ordered[1:] != ordered[:-1]])  # starts of runs of equal values
    starts = np.flatnonzero(first)
    ends = np.concatenate([starts[1:], [len(values)]])
    ranks = np.empty(len(values), np.float64)
    ranks[order] = ((starts + ends - 1) / 2 + 1)[np.cumsum(first) - 1]
    return ranks


def _pearson(x, y):
    x, y = x - x.mean(), y - y.mean()
    norm = math.sqrt(float(np.dot(x, x)) * float(np.dot(y, y)))
    return float(np.dot(x, y) / norm) if norm > 0 else float("nan")  # a constant side: undefined


def regression_metrics(targets, predictions):
    """Pearson and Spearman correlation, mean squared and absolute error of predicted scores.

    Written in numpy (scipy is not a dependency of keras_bert); tests check them against
    `scipy.stats.pearsonr` / `spearmanr`. A correlation with a constant side is NaN, as scipy's.

    Args:
        targets: float `[n]` gold scores.
        predictions: float `[n]` or `[n, 1]` predicted scores.

    Returns:
        dict with `pearson`, `spearman`, `mse`, `mae` and `mean_baseline_mse` (the MSE of
        always predicting the gold scores' mean, i.e. their variance).

    Example:
        >>> regression_metrics(np.array([1., 2., 3.]), np.array([1.1, 1.9, 3.5]))["spearman"]
        1.0
    """
    targets = np.asarray(targets, np.float64).reshape(-1)
    predictions = np.asarray(predictions, np.float64).reshape(len(targets))
    errors = predictions - targets
    return {"pearson": _pearson(targets, predictions),
            "spearman": _pearson(_ranks(targets), _ranks(predictions)),
            "mse": float(np.mean(errors ** 2)), "mae": float(np.mean(np.abs(errors))),
            "mean_baseline_mse": float(np.var(targets))}


def explain_correlation(name, what="the predictions"):
    """metrics.json's note on a correlation that is undefined (NaN)."""
    return (f"undefined: {name} correlation needs values that vary, and the evaluation file's gold scores or "
            f"{what} are all equal")


_LARGEST_TARGET = math.sqrt(float(np.finfo(np.float32).max))  # about 1.8e19


def _targets(path, label, values, task="regression", lines=None):
    """The label column as float32 `[n, 1]`, or a one-line error naming the row (and its line in the
    file, given `lines`) and `task`, the task that reads the column."""
    targets = []
    for row_number, value in enumerate(values, start=1):
        where = f"Row {row_number} of {path!r}" + (f" (line {lines[row_number - 1]})" if lines else "")
        try:
            number = float(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            number = None
        if isinstance(value, bool) or number is None or not math.isfinite(number):
            raise ValueError(f"{where} has {label} {value!r} (--label {label}); "
                             f"task {task!r} needs a finite number in every row.")
        if abs(number) >= _LARGEST_TARGET:  # float32 would make it (or its squared error) inf
            raise ValueError(f"{where} has {label} {value!r} (--label {label}): beyond what float32 training "
                             f"holds (|score| < {_LARGEST_TARGET:.3g}, its squared error finite); rescale the scores.")
        targets.append(number)
    return np.asarray(targets, np.float32)[:, np.newaxis]


@dataclasses.dataclass(frozen=True)
class RegressionOptions(TaskOptions):
    """`RegressionTask`'s options (see its Args)."""

    task_name = "regression"  # errors name the task
    text_a: str = option("sentence", "column of the (first) text")
    text_b: str = option(None, "column of the second text of a pair (default: single texts)")
    label: str = option("label", "column of the target score (a number)")
    doc_stride: int = window_fields()[0]
    aggregate: str = window_fields()[1]

    def check(self):
        for name in ("text_a", "label"):
            if not getattr(self, name):
                raise ValueError(f"{name}={getattr(self, name)!r} (--{name}) must name a column of the data file.")
        self._set("text_b", self.text_b or None)
        check_window_options(self.doc_stride, self.text_b, self.task_name, self.aggregate)


class RegressionServing(TaskServing):
    """A regression model's serving: `score` everywhere (ids and text in SavedModel, TFLite and ONNX)."""

    name = "regression"
    Options = RegressionOptions
    tflite_signatures = ("score",)

    @classmethod
    def check_serving(cls, model, task_config):
        super().check_serving(model, task_config)  # the options, checked
        if model.output.shape[-1] != 1:
            raise ValueError(f"Model {model.name!r} is a 'regression' model with {model.output.shape[-1]} "
                             "outputs; a regression head has one (its score).")

    def serving_outputs(self, outputs):
        return {"score": outputs[:, 0]}  # (batch, 1) -> (batch,)

    def text_signatures(self):
        """`score`: `text_a` (and `text_b` for a pair model) -> `score` `[batch]`. A model trained with
        `doc_stride`: the SavedModel's windows long texts and aggregates the windows' scores
        (`serve_windows`); TFLite's truncates to `seq_length`."""
        return text_signature(self, "score", lambda outputs: {"score": outputs["score"]},
                              windowed=lambda text_a: {"score": serve_windows(self, text_a, self.options, "score")})


class RegressionTask(Task):
    """One text (or text pair) -> one float score (e.g. STS-B similarity, a rating).

    The head is one linear output on the pooled `[CLS]` vector, trained with mean squared
    error on the raw targets; evaluated by Pearson and Spearman correlation
    (`regression_metrics`). Served as `score` (`[batch]` float32): the SavedModel's
    `serving_default` and `score` (raw text) signatures, TFLite's text model and ONNX.

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        text_a: column of the (first) text.
        text_b: column of the second text of a pair (None: single texts).
        label: column of the score (any finite number; integers are scores too, not classes).
        doc_stride, aggregate: long single texts as windows, each trained with the document's
            score; evaluation and the served `score` aggregate the windows' scores per document
            (mean by default), as `ClassificationTask` does with logits.

    Example:
        >>> task = RegressionTask(tokenizer, 128, 32, text_a="sentence1", text_b="sentence2", label="score")
        >>> train = task.read("stsb_train.tsv", training=True)
    """

    name = "regression"
    Options = RegressionOptions
    serving = RegressionServing
    HF_PROBLEM_TYPE = "regression"

    def read(self, path, training):
        from keras_bert.data.classification import read_text_rows, text_dataset
        from keras_bert.text.preprocessor import Preprocessor

        lines = []
        texts_a, texts_b, values = read_text_rows(path, self.text_a, self.text_b, self.label, lines=lines)
        targets = _targets(path, self.label, values, self.name, lines)
        if training and np.all(targets == targets[0]):
            raise ValueError(f"{path}: every training example has the {self.label} {float(targets[0, 0])!r}; "
                             "a regression needs targets that vary.")
        dataset = text_dataset(Preprocessor(self.tokenizer, self.seq_length), texts_a, texts_b, targets,
                               self.batch_size, training, self.seed, doc_stride=self.doc_stride)
        return without_document(dataset, self.doc_stride) if training else dataset

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_classifier

        return build_classifier(encoder, 1, name="bert_regressor", task=self.name, task_config=task_config,
                                problem_type=self.HF_PROBLEM_TYPE)

    def compile_kwargs(self):
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        return {"loss": keras.losses.MeanSquaredError(),
                "metrics": [keras.metrics.MeanAbsoluteError(name="mae")]}

    def validation_data(self, evaluation):
        return without_document(evaluation, self.doc_stride)

    def evaluate(self, model, evaluation, path):
        return regression_metrics(*document_predictions(model, evaluation, self))

    def explain_metric(self, name, value):
        if name in ("pearson", "spearman"):
            return explain_correlation(name)
        return super().explain_metric(name, value)
