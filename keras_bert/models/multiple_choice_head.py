"""MultipleChoiceHead: one score per `[CLS] context [SEP] ending [SEP]` row, softmax across the endings."""

import keras

from keras_bert.models.bert_encoder import ENCODER_INPUTS, encoder_inputs
from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class ChoiceRows(keras.layers.Layer):
    """`[batch, choices, seq]` ids -> `[batch * choices, seq]` rows, the encoder's inputs (choice-major).

    Example:
        >>> ChoiceRows()(keras.ops.ones((2, 4, 8), "int32")).shape
        (8, 8)
    """

    def call(self, ids):
        return keras.ops.reshape(ids, (-1, keras.ops.shape(ids)[-1]))  # (batch * choices, seq)

    def compute_output_shape(self, ids_shape):
        rows = None if None in ids_shape[:2] else ids_shape[0] * ids_shape[1]
        return (rows, ids_shape[-1])


@keras.saving.register_keras_serializable(package="keras_bert")
class MultipleChoiceHead(TaskHead):
    """Logits `[batch, choices]`: dropout + one dense unit on the pooled output of each choice's row,
    Hugging Face's `BertForMultipleChoice` (`classifier` `[1, hidden]`). The model's inputs are the
    three id inputs shaped `[batch, choices, seq]`; any number of choices. Ids of rows `[rows, seq]`
    (what serving packs) give one score per row, `[rows]`.

    Args:
        num_outputs: 1 (one score per choice).
        dropout_rate, initializer_range: see `TaskHead`.

    Example:
        >>> head = MultipleChoiceHead()
        >>> head(keras.ops.ones((8, 16)), keras.ops.ones((2, 4, 5), "int32")).shape
        (2, 4)
    """

    HF_ARCHITECTURE = "BertForMultipleChoice"
    HF_TASK = "multiple_choice"
    HF_LABELS = False
    MODEL_NAME = "bert_multiple_choice"
    NAME = "multiple_choice"

    def __init__(self, num_outputs=1, dropout_rate=None, initializer_range=0.02, **kwargs):
        if num_outputs != 1:
            raise ValueError(f"MultipleChoiceHead scores each choice with one output; got num_outputs={num_outputs!r}.")
        super().__init__(1, dropout_rate, initializer_range, **kwargs)

    def build(self, pooled_shape, ids_shape=None):
        self.dense.build(pooled_shape)
        self.built = True

    def call(self, pooled, ids, training=None):  # pylint: disable=arguments-differ
        scores = super().call(pooled, training=training)  # (batch * choices, 1)
        return keras.ops.reshape(scores, keras.ops.shape(ids)[:-1])  # (batch, choices); rows in: (rows,)

    def compute_output_shape(self, pooled_shape, ids_shape=None):  # pylint: disable=arguments-differ
        return tuple(ids_shape[:-1]) if ids_shape is not None else (None, None)

    def connect(self, encoder):
        inputs = {name: keras.Input(shape=(None, None), dtype="int32", name=name) for name in ENCODER_INPUTS}
        flatten = ChoiceRows(name="choice_rows")
        rows = {name: flatten(ids) for name, ids in inputs.items()}  # (batch * choices, seq) each
        return inputs, self(encoder(rows)["pooled_output"], inputs["input_word_ids"])

    def row_model(self, model):
        """`[rows, seq]` ids (`[CLS] context [SEP] ending [SEP]` each) -> one score per row, `[rows]`: what
        serving packs from raw text; the same layers and weights as `model`."""
        inputs = encoder_inputs()
        scores = self(model.encoder(inputs)["pooled_output"], inputs["input_word_ids"])  # (rows,)
        return keras.Model(inputs, scores, name=f"{model.name}_rows")
