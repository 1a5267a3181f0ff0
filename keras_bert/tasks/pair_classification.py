"""Sentence-pair classification (entailment, paraphrase): two text columns -> one label."""

from keras_bert.tasks.classification import ClassificationTask


class PairClassificationTask(ClassificationTask):
    """`ClassificationTask` on `[CLS] text_a [SEP] text_b [SEP]`; `text_b` is required.

    Example:
        >>> task = PairClassificationTask(tokenizer, 128, 32, text_a="premise", text_b="hypothesis")
    """

    name = "pair_classification"
    pairs = True

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0, *, text_b=None, **options):
        if not text_b:
            raise ValueError("task 'pair_classification' needs text_b (the second text's column).")
        super().__init__(tokenizer, seq_length, batch_size, seed, text_b=text_b, **options)
