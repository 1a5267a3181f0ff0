"""SpanHead: one dense(2) on every token, split into SQuAD's start and end logits."""

import keras

from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class SpanHead(TaskHead):
    """`start_logits` and `end_logits`, each `[batch, seq]`: Google's run_squad.py head
    (`cls/squad/output_weights` `[2, hidden]`), Hugging Face's `BertForQuestionAnswering`
    (`qa_outputs`, no pooler, no dropout).

    Args:
        initializer_range: see `TaskHead` (two outputs, no dropout, as both originals).

    Example:
        >>> sorted(SpanHead()(keras.ops.ones((2, 5, 16))))
        ['end_logits', 'start_logits']
    """

    GOOGLE_PREFIX = "cls/squad/"
    ENCODER_OUTPUT = "sequence_output"
    HF_ARCHITECTURE = "BertForQuestionAnswering"
    HF_PREFIX = "qa_outputs"
    HF_TASK = "squad"
    HF_LABELS = False
    MODEL_NAME = "bert_span_labeler"
    NAME = "span_labeler"

    def __init__(self, num_outputs=2, dropout_rate=None, initializer_range=0.02, **kwargs):
        if num_outputs != 2 or dropout_rate is not None:
            raise ValueError(f"SpanHead has 2 outputs (start, end) and no dropout; got num_outputs={num_outputs!r}, "
                             f"dropout_rate={dropout_rate!r}.")
        super().__init__(2, None, initializer_range, **kwargs)

    def call(self, features, training=None):
        logits = super().call(features, training=training)  # (batch, seq, 2)
        return {"start_logits": logits[..., 0], "end_logits": logits[..., 1]}  # (batch, seq) each

    def compute_output_shape(self, features_shape):
        return {"start_logits": tuple(features_shape[:-1]), "end_logits": tuple(features_shape[:-1])}

    @classmethod
    def from_weights(cls, weights, dropout_rate=None, initializer_range=0.02, dtype=None, **options):
        return cls(initializer_range=initializer_range, dtype=dtype)
