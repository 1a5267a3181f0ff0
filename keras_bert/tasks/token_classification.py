"""Token classification (NER): CoNLL files, a label per word on its first word piece; entity-level F1."""

import dataclasses

import numpy as np

from keras_bert.tasks.entity_tags import split_tag as _split_tag
from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, check_classes, collect, fitted_labels, freeze_pooler


@dataclasses.dataclass(frozen=True)
class TokenClassificationOptions(TaskOptions):
    """`TokenClassificationTask`'s options (see its Args)."""

    labels: list = option(None, "tag vocabulary, in id order (default: sorted from the training file)")

    def check(self):
        if self.labels is not None:  # the one label-name rule (keras_bert.text.label_names)
            from keras_bert.text.label_names import label_vocabulary_names

            self._set("labels", label_vocabulary_names(self.labels))


class TokenClassificationServing(TaskServing):
    """A token classifier's serving: per-token `logits` and `probabilities`; `entities` from text (SavedModel)."""

    name = "token_classification"
    Options = TokenClassificationOptions

    def text_signatures(self):
        """`entities` (with label names): entity spans with character offsets into the text.

        Not in TFLite: UnicodeDecodeWithOffsets, StringLength, LowerBound/UpperBound, RaggedRange,
        RaggedGather, Substr, DenseBincount, UnsortedSegmentSum have no TFLite kernel; not in ONNX:
        tf2onnx cannot convert tensorflow-text's word and offset ops.
        """
        import tensorflow as tf

        from keras_bert.tasks import task_signatures

        labels = self.options.labels
        if labels is None:
            return {}
        return {"entities": tf.function(lambda text: task_signatures.entities(self, text, labels),
                                        autograph=False,
                                        input_signature=[tf.TensorSpec([None], tf.string, name="text")])}


class TokenClassificationTask(Task):
    """Tags every word (CoNLL: a word and its tag a line, a blank line between sentences).

    Trained on each word's first piece; scored by word accuracy and entity-level (CoNLL)
    precision, recall and F1 over the whole evaluation file (`token_classification_metrics`).

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        labels: the tag vocabulary, in id order (None: fitted from the training file, `fit_options`).

    Example:
        >>> task = TokenClassificationTask(tokenizer, 128, 32)
    """

    name = "token_classification"
    Options = TokenClassificationOptions
    serving = TokenClassificationServing

    def fit_options(self, path):
        """The tag vocabulary of the training file `path` (its tags, sorted), unless `labels` was given."""
        if self.labels is None:
            from keras_bert.data.token_classification import read_conll

            labels = sorted({tag for sentence_tags in read_conll(path)[1] for tag in sentence_tags})
            self.options = self.options.replace(labels=labels)
        return self.options

    def read(self, path, training):
        from keras_bert.data.token_classification import token_classification_dataset

        dataset, labels = token_classification_dataset(
            path, self.tokenizer, self.seq_length, labels=fitted_labels(self), batch_size=self.batch_size,
            shuffle=training, seed=self.seed)
        if training:
            check_classes(path, "tag", collect(dataset, 1)[collect(dataset, 2) > 0], labels, tagger=True)
        return dataset

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_token_classifier

        return freeze_pooler(build_token_classifier(encoder, len(fitted_labels(self)), task_config=task_config))

    def compile_kwargs(self):
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        return {"loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                "weighted_metrics": [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]}

    def evaluate(self, model, evaluation, path):
        from keras_bert.data.token_classification import read_conll

        return token_classification_metrics(
            collect(evaluation, 1), model.predict(evaluation, verbose=0), collect(evaluation, 2),
            self.labels, gold_tags=read_conll(path)[1])



def entity_spans(tags, outside="O"):
    """The entities in one sentence's tags, as CoNLL's conlleval (and seqeval's default mode) reads them.

    Reads IOB2/BIO (`B-` starts every entity), IOB1 (`I-` after another type or `O` starts
    one, `B-` only separates two adjacent entities of one type) and IOBES tags; a label
    without such a prefix (IO tagging) counts as `I-`. Hand-written, as the metric's
    library, seqeval 1.2.2, ships only a source archive that fails to build with today's
    setuptools_scm; its results are checked against seqeval's in tests/tasks.

    Args:
        tags: the sentence's label strings, one per word.
        outside: the label that marks "no entity".

    Returns:
        list of `(type, start, end)`, `end` inclusive.

    Example:
        >>> entity_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"])
        [('PER', 0, 1), ('LOC', 3, 3), ('LOC', 4, 4)]
    """
    spans, start = [], 0
    prev_tag, prev_type = "O", ""
    for i, (tag, type_) in enumerate([_split_tag(t, outside) for t in tags] + [("O", "")]):
        ends = (prev_tag in "ES" or (prev_tag in "BI" and tag in "BSO")
                or (prev_tag != "O" and prev_type != type_))
        starts = (tag in "BS" or (prev_tag in "ESO" and tag in "EI")
                  or (tag != "O" and prev_type != type_))
        if ends:
            spans.append((prev_type, start, i - 1))
        if starts:
            start = i
        prev_tag, prev_type = tag, type_
    return spans


def entity_metrics(gold, predicted, outside="O"):
    """Entity-level (CoNLL) micro precision, recall and F1: an entity counts only if its
    whole span and its type are right.

    Args:
        gold, predicted: lists (one per sentence) of tag lists of equal lengths.
        outside: the label that marks "no entity".

    Returns:
        dict with `precision`, `recall`, `f1` (0 where undefined, as seqeval and conlleval
        report) and the counts `gold_entities`, `predicted_entities`, `correct_entities`.

    Example:
        >>> entity_metrics([["B-PER", "I-PER", "O"]], [["B-PER", "O", "O"]])["f1"]
        0.0
    """
    if len(gold) != len(predicted):
        raise ValueError(f"Got {len(gold)} gold and {len(predicted)} predicted sentences; "
                         "expected one prediction per gold sentence.")
    n_gold = n_predicted = n_correct = 0
    for number, (gold_tags, predicted_tags) in enumerate(zip(gold, predicted)):
        if len(gold_tags) != len(predicted_tags):
            raise ValueError(f"Sentence {number} has {len(gold_tags)} gold tags but "
                             f"{len(predicted_tags)} predicted ones; expected one tag per word.")
        gold_spans = set(entity_spans(gold_tags, outside))
        predicted_spans = set(entity_spans(predicted_tags, outside))
        n_gold += len(gold_spans)
        n_predicted += len(predicted_spans)
        n_correct += len(gold_spans & predicted_spans)
    precision = n_correct / n_predicted if n_predicted else 0.0
    recall = n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if n_correct else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "gold_entities": n_gold,
            "predicted_entities": n_predicted, "correct_entities": n_correct}


def token_classification_metrics(labels, logits, weights, label_names, outside="O", gold_tags=None):
    """NER metrics on first word pieces: token accuracy and entity-level (CoNLL) F1.

    Args:
        labels: int `[n, seq]`; logits: float `[n, seq, labels]`; weights: `[n, seq]`
            (1 on the first piece of each word), one row per sentence, in order.
        label_names: the label vocabulary (BIO/IOB1/IOBES tags, see `entity_spans`).
        outside: the label that marks "no entity".
        gold_tags: optional, the sentences' full gold tags (e.g. from `read_conll`): words
            cut off by `seq_length` then count as predicted `outside`, as a CoNLL
            evaluation of the whole file would see them.

    Returns:
        dict with `accuracy` (share of words tagged right), and the entity-level
        `precision`, `recall` and `f1` (an entity counts only if its whole span and type
        are right; micro-averaged over entities, as conlleval and seqeval report).

    Example:
        >>> token_classification_metrics(labels, model.predict(ds), weights, ["O", "B-PER", "I-PER"])["f1"]
    """
    weights, labels = np.asarray(weights), np.asarray(labels)
    predictions = np.asarray(logits).argmax(-1)
    gold, predicted = [], []
    for row in range(len(labels)):
        mask = weights[row] > 0
        row_gold = [label_names[i] for i in labels[row][mask]]
        row_predicted = [label_names[i] for i in predictions[row][mask]]
        if gold_tags is not None:
            full = list(gold_tags[row])
            if full[:len(row_gold)] != row_gold:
                raise ValueError(f"gold_tags[{row}] starts {full[:len(row_gold)]} but the labels' row "
                                 f"{row} holds {row_gold}; pass the sentences in the dataset's order "
                                 "(an unshuffled dataset).")
            row_predicted += [outside] * (len(full) - len(row_gold))
            row_gold = full
        gold.append(row_gold)
        predicted.append(row_predicted)
    words = sum(len(g) for g in gold)
    right = sum(a == b for g, p in zip(gold, predicted) for a, b in zip(g, p))
    scores = entity_metrics(gold, predicted, outside)
    return {"accuracy": right / max(1, words), "precision": scores["precision"],
            "recall": scores["recall"], "f1": scores["f1"]}
