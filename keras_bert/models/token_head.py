"""TokenHead: dropout + dense on every token's vector (NER, tagging)."""

import keras

from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class TokenHead(TaskHead):
    """Logits `[batch, seq, outputs]`: Hugging Face's `BertForTokenClassification` (dropout,
    `classifier` on every token, no pooler). Google released no such head: its weights take
    run_classifier.py's names (`output_weights`, `output_bias`).

    Args: see `TaskHead`.

    Example:
        >>> TokenHead(9)(keras.ops.ones((2, 5, 16))).shape
        (2, 5, 9)
    """

    ENCODER_OUTPUT = "sequence_output"
    HF_ARCHITECTURE = "BertForTokenClassification"
    HF_TASK = "token_classification"
    MODEL_NAME = "bert_token_classifier"
    NAME = "token_classifier"
