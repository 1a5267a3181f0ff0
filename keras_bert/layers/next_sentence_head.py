"""BERT's next-sentence head: a 2-way classifier on the pooled output."""

import keras

from keras_bert.layers.bert_layer import BertLayer


@keras.saving.register_keras_serializable(package="keras_bert")
class NextSentenceHead(BertLayer):
    """Logits for "B follows A" (class 0, IsNext) and "B is random" (class 1).

    Args:
        initializer_range: stddev of the truncated-normal initializer.

    Example:
        >>> NextSentenceHead()(keras.ops.ones((2, 16))).shape
        (2, 2)
    """

    def __init__(self, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(initializer_range=initializer_range)
        self.dense = keras.layers.Dense(
            2, kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy, name="dense")

    def build(self, pooled_output_shape):
        self.dense.build(pooled_output_shape)
        self.built = True

    def call(self, pooled_output):
        return self.dense(pooled_output)

    def compute_output_shape(self, pooled_output_shape):
        return tuple(pooled_output_shape[:-1]) + (2,)  # packed rows: (batch, examples, 2)
