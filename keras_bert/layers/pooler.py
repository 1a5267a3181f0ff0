"""BERT's pooler: a tanh dense layer on the [CLS] hidden state."""

import keras

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer


@keras.saving.register_keras_serializable(package="keras_bert")
class Pooler(BertLayer):
    """Returns `tanh(W h_[CLS] + b)`, the sentence representation BERT's NSP head reads.

    Args:
        hidden_size: width of the hidden states.
        initializer_range: stddev of the truncated-normal initializer.
        activation: "tanh" (BERT) or a `BertConfig.hidden_act` name (ELECTRA's sequence head: "gelu").

    Example:
        >>> Pooler(16)(keras.ops.ones((2, 5, 16))).shape
        (2, 16)
    """

    def __init__(self, hidden_size, initializer_range=0.02, activation="tanh", **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(hidden_size=hidden_size, initializer_range=initializer_range, activation=activation)
        self.dense = keras.layers.Dense(
            hidden_size, activation="tanh" if activation == "tanh" else get_activation(activation),
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy, name="dense")

    def build(self, sequence_output_shape):
        self.dense.build((sequence_output_shape[0], sequence_output_shape[-1]))
        self.built = True

    def call(self, sequence_output):
        return self.dense(sequence_output[:, 0, :])  # (batch, hidden)

    def compute_output_shape(self, sequence_output_shape):
        return (sequence_output_shape[0], self.hidden_size)
