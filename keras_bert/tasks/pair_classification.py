"""Sentence-pair classification (entailment, paraphrase): two text columns -> one label."""

import dataclasses

from keras_bert.tasks.classification import ClassificationOptions, ClassificationServing, ClassificationTask
from keras_bert.tasks.options import option


@dataclasses.dataclass(frozen=True)
class PairClassificationOptions(ClassificationOptions):
    """`PairClassificationTask`'s options: classification's and the required `text_b`."""

    task_name = "pair_classification"
    text_b: str = option(None, "column of the second text (required)")

    def check(self):
        if not self.text_b:
            raise ValueError("task 'pair_classification' needs text_b (--text_b: the second text's column).")
        super().check()


class PairClassificationServing(ClassificationServing):
    """A pair classifier's serving: a classifier's, on two texts."""

    name = "pair_classification"
    Options = PairClassificationOptions
    single_text_output = None  # two texts in: not one text's classifier


class PairClassificationTask(ClassificationTask):
    """`ClassificationTask` on `[CLS] text_a [SEP] text_b [SEP]`; `text_b` is required.

    Example:
        >>> task = PairClassificationTask(tokenizer, 128, 32, text_a="premise", text_b="hypothesis")
    """

    name = "pair_classification"
    Options = PairClassificationOptions
    serving = PairClassificationServing
