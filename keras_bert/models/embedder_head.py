"""EmbedderHead: the encoder's token vectors pooled over the mask into one sentence vector."""

import keras

from keras_bert.layers.sentence_pooling import SentencePooling
from keras_bert.models.bert_encoder import encoder_inputs
from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class EmbedderHead(TaskHead):
    """Sentence embeddings `[batch, hidden * modes]`: sentence-transformers' Pooling (+ Normalize)
    modules (`SentencePooling`); no weights, so no Google or Hugging Face head names.

    Args:
        pooling: "mean", "cls", "max", "mean_sqrt_len_tokens" or several ("cls,mean" or a list).
        normalize: L2-normalize the vector.

    Example:
        >>> EmbedderHead("mean")(keras.ops.ones((2, 5, 16)), keras.ops.ones((2, 5), "int32")).shape
        (2, 16)
    """

    ENCODER_OUTPUT = "sequence_output"
    HF_PREFIX = None
    MODEL_NAME = "bert_embedder"
    NAME = "embeddings"
    num_outputs = dropout_rate = None  # a pooling, no dense layer

    def __init__(self, pooling="mean", normalize=True, **kwargs):
        kwargs.setdefault("dtype", "float32")  # pooled in float32, as sentence-transformers accumulates
        kwargs.setdefault("name", self.NAME)
        super(TaskHead, self).__init__(**kwargs)  # pylint: disable=bad-super-call
        self.pooling_layer = SentencePooling(pooling, normalize, name="pooling")
        self.store_arguments(pooling=",".join(self.pooling_layer.modes), normalize=bool(normalize))

    def build(self, sequence_output_shape, mask_shape=None):
        self.built = True

    def call(self, sequence_output, mask):  # pylint: disable=arguments-differ
        return self.pooling_layer(sequence_output, mask)

    def compute_output_shape(self, sequence_output_shape, mask_shape=None):  # pylint: disable=arguments-differ
        return self.pooling_layer.compute_output_shape(sequence_output_shape)

    def connect(self, encoder):
        inputs = encoder_inputs()
        return inputs, self(encoder(inputs)["sequence_output"], inputs["input_mask"])

    def google_variables(self):
        return []

    def embedding_options(self):
        return {"pooling": self.pooling, "normalize": self.normalize}
