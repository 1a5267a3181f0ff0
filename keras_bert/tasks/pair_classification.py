"""Sentence-pair classification (entailment, paraphrase): two text columns -> one label."""

from keras_bert.tasks.classification import ClassificationTask, check_window_options


class PairClassificationTask(ClassificationTask):
    """`ClassificationTask` on `[CLS] text_a [SEP] text_b [SEP]`; `text_b` is required.

    Example:
        >>> task = PairClassificationTask(tokenizer, 128, 32, text_a="premise", text_b="hypothesis")
    """

    name = "pair_classification"
    OPTION_HELP = {"text_b": "column of the second text (required)"}
    single_text_output = None  # two texts in: not one text's classifier

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0, *, text_b: str = None, **options):
        if not text_b:
            raise ValueError("task 'pair_classification' needs text_b (--text_b: the second text's column).")
        check_window_options(options.get("doc_stride"), options.get("aggregate", "mean"), text_b, self.name)
        super().__init__(tokenizer, seq_length, batch_size, seed, **options)
        self.text_b = text_b

    def model_options(self):
        return dict(super().model_options(), text_b=self.text_b)
