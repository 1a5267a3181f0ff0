"""Multiple choice (SWAG): a context and N endings -> the index of the ending that follows; accuracy."""

import dataclasses
import json

import numpy as np

from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, collect

DEFAULT_ENDINGS = ("ending0", "ending1", "ending2", "ending3")  # SWAG's columns


@dataclasses.dataclass(frozen=True)
class MultipleChoiceOptions(TaskOptions):
    """`MultipleChoiceTask`'s options (see its Args)."""

    context: str = option("context", "column of the context (the passage or question)")
    endings: list = option(None, "columns of the endings, one per choice (default: ending0 .. ending3, SWAG's), "
                           "or one column holding a JSON list of endings")
    label: str = option("label", "column of the right ending's index (0-based)")

    def check(self):
        self._set("endings", [str(column) for column in (self.endings or DEFAULT_ENDINGS)])


class MultipleChoiceServing(TaskServing):
    """A multiple-choice model's serving: ids are rows (`[CLS] context [SEP] ending [SEP]`, one logit each);
    `choose` groups them."""

    name = "multiple_choice"
    Options = MultipleChoiceOptions

    def serving_outputs(self, outputs):
        return {"logits": outputs}  # (rows,): a question's softmax needs its rows, which `choose` groups

    def text_signatures(self):
        """`choose(context [b], endings [b, choices])`: `label` (the right ending's index),
        `probabilities` and `logits` `[b, choices]`."""
        import tensorflow as tf

        def choose(context, endings):
            shape = tf.shape(endings)  # (batch, choices)
            contexts = tf.reshape(tf.tile(context[:, tf.newaxis], [1, shape[1]]), [-1])  # (batch * choices,)
            rows = self.preprocessor.pack([self.tokenize(contexts), self.tokenize(tf.reshape(endings, [-1]))])
            logits = tf.reshape(self.outputs_from_ids(rows)["logits"], shape)  # (batch, choices)
            return {"label": tf.argmax(logits, axis=-1, output_type=tf.int32),
                    "probabilities": tf.nn.softmax(logits, axis=-1), "logits": logits}

        return {"choose": tf.function(choose, autograph=False, input_signature=[
            tf.TensorSpec([None], tf.string, name="context"), tf.TensorSpec([None, None], tf.string, name="endings")])}


class MultipleChoiceTask(Task):
    """A context and N candidate endings -> which ending is right (Hugging Face's `BertForMultipleChoice`).

    Each choice is packed as `[CLS] context [SEP] ending [SEP]` (the one packer); the model scores
    every row with one dense unit on its pooled output and the loss is a softmax across a question's
    endings. The file (CSV, TSV or JSONL) holds the context, the endings in N columns or in one column
    holding a JSON list, and the 0-based index of the right ending.

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        context: the context's column.
        endings: the endings' columns (one per choice), or one column holding a JSON list of them.
        label: the column of the right ending's index.

    Example:
        >>> task = MultipleChoiceTask(tokenizer, 64, 16, context="sent1", endings=["ending0", "ending1"])
    """

    name = "multiple_choice"
    Options = MultipleChoiceOptions
    serving = MultipleChoiceServing

    def examples(self, path):
        """`(contexts [n], endings [n][choices], labels int [n])` of a file, or a one-line error."""
        from keras_bert.data.classification import read_text_rows
        from keras_bert.data.table_rows import read_table_rows

        rows = read_table_rows(path)
        for flag, column in [("context", self.context), ("label", self.label)] + [("endings", e) for e in self.endings]:
            if column not in rows[0]:
                raise ValueError(f"Column {column!r} (--{flag}) not found in {path!r}; available columns: "
                                 f"{list(rows[0])}. Pass --{flag} one of them.")
        contexts, _, values = read_text_rows(path, self.context, None, self.label)
        if len(self.endings) == 1:  # one column holding a JSON list per row
            endings = [_ending_list(row[self.endings[0]], path, number) for number, row in enumerate(rows, start=1)]
        else:
            columns = [read_text_rows(path, column, None, None)[0] for column in self.endings]
            endings = [list(row) for row in zip(*columns)]
        counts = {len(row) for row in endings}
        if len(counts) != 1 or min(counts) < 2:
            raise ValueError(f"{path}: every row needs the same number (>= 2) of endings (--endings "
                             f"{' '.join(self.endings)}); found {sorted(counts)}.")
        return contexts, endings, _label_ids(values, len(endings[0]), path, self.label)

    def read(self, path, training):
        import tensorflow as tf

        from keras_bert.text.preprocessor import Preprocessor

        contexts, endings, labels = self.examples(path)
        choices = len(endings[0])
        rows = Preprocessor(self.tokenizer, self.seq_length)(
            tf.constant(np.repeat(contexts, choices)), tf.constant([e for row in endings for e in row]))
        features = {name: tf.reshape(value, [len(contexts), choices, -1])  # (examples, choices, seq)
                    for name, value in rows.items()}
        dataset = tf.data.Dataset.from_tensor_slices((features, tf.constant(labels, tf.int32)))
        if training:
            dataset = dataset.shuffle(len(contexts), seed=self.seed, reshuffle_each_iteration=True)
        return dataset.batch(self.batch_size)

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_multiple_choice

        return build_multiple_choice(encoder, task=self.name, task_config=task_config)

    def evaluate(self, model, evaluation, path):
        labels = collect(evaluation, 1)
        logits = model.predict(evaluation, verbose=0)  # (examples, choices)
        return {"accuracy": float(np.mean(logits.argmax(-1) == labels)), "chance": 1.0 / logits.shape[-1]}



def _ending_list(value, path, row):
    """One row's endings from a JSON list (a JSONL list, or a CSV/TSV cell holding one)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = None
    if not isinstance(value, list) or not all(isinstance(ending, str) for ending in value):
        raise ValueError(f"Row {row} of {path!r}: the endings column (--endings) must hold a JSON list of "
                         "strings, e.g. [\"ending one\", \"ending two\"]; or pass one column per ending.")
    return value


def _label_ids(values, choices, path, column):
    """The labels as ints in [0, choices), or a one-line error naming the row and column."""
    labels = []
    for row, value in enumerate(values, start=1):
        try:
            label = int(str(value).strip())
        except ValueError:
            label = -1
        if not 0 <= label < choices:
            raise ValueError(f"Row {row} of {path!r}: column {column!r} (--label) holds {value!r}; expected the "
                             f"right ending's index, 0 to {choices - 1}.")
        labels.append(label)
    return labels
