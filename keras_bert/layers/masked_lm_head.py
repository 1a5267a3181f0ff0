"""BERT's masked-LM head: gather masked positions, transform, tied vocabulary projection."""

import keras
from keras import ops

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.gather_rows import gather_rows


@keras.saving.register_keras_serializable(package="keras_bert")
class MaskedLMHead(BertLayer):
    """Predicts the original tokens at `masked_lm_positions`.

    Gathers the masked positions *first* (as original BERT does), then
    dense + activation + LayerNorm, then projects onto the word-embedding matrix
    of `embedding_layer` (weights tied) and adds a per-token output bias.

    Args:
        vocab_size: size of the output vocabulary.
        hidden_size: width of the hidden states.
        hidden_act: "gelu" (exact erf), "gelu_tanh" or "relu".
        initializer_range: stddev of the truncated-normal initializer.
        layer_norm_eps: LayerNorm epsilon.
        embedding_size: the word embeddings' width where it differs from hidden_size (ELECTRA's generator:
            the transform maps hidden_size -> embedding_size); None: hidden_size.
        embedding_layer: the `BertEmbeddings` whose `embedding_table` is the
            output projection. Not serialized: the model that owns both layers
            passes it again when rebuilt (see `BertPretrainer`).

    Example:
        >>> embeddings = BertEmbeddings(vocab_size=100, hidden_size=16)
        >>> head = MaskedLMHead(100, 16, embedding_layer=embeddings)
        >>> x = embeddings(keras.ops.ones((2, 5), "int32"))
        >>> head(x, keras.ops.zeros((2, 3), "int32")).shape
        (2, 3, 100)
    """

    def __init__(self, vocab_size, hidden_size, hidden_act="gelu", initializer_range=0.02,
                 layer_norm_eps=1e-12, embedding_layer=None, embedding_size=None, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(vocab_size=vocab_size, hidden_size=hidden_size, hidden_act=hidden_act,
            initializer_range=initializer_range, layer_norm_eps=layer_norm_eps, embedding_size=embedding_size)
        # Not tracked as a sublayer: the embedding matrix belongs to the encoder,
        # so it is saved, counted and trained once, not twice.
        object.__setattr__(self, "embedding_layer", embedding_layer)
        self.activation = get_activation(hidden_act)
        self.transform = keras.layers.Dense(
            embedding_size or hidden_size,  # the word embeddings' width: the decoder is tied to them
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy, name="transform")
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")

    def build(self, sequence_output_shape, masked_lm_positions_shape=None):
        if self.embedding_layer is None:
            raise ValueError(
                "MaskedLMHead needs `embedding_layer` (the BertEmbeddings whose word "
                "embeddings it is tied to); build it with keras_bert.build_pretrainer().")
        self.transform.build(sequence_output_shape)
        self.layer_norm.build(tuple(sequence_output_shape[:-1]) + (self.embedding_size or self.hidden_size,))
        self.output_bias = self.add_weight(
            shape=(self.vocab_size,), initializer="zeros", name="output_bias")
        self.built = True

    def call(self, sequence_output, masked_lm_positions):
        batch = ops.shape(sequence_output)[0]
        x = ops.reshape(gather_rows(sequence_output, masked_lm_positions), (-1, self.hidden_size))  # (batch * p, hidden)
        x = self.layer_norm(self.activation(self.transform(x)))
        table = ops.cast(self.embedding_layer.embedding_table, x.dtype)  # (vocab, embedding_size)
        logits = ops.matmul(x, ops.transpose(table)) + ops.cast(self.output_bias, x.dtype)
        num_predictions = ops.shape(masked_lm_positions)[1]
        return ops.reshape(logits, (batch, num_predictions, self.vocab_size))  # (batch, predictions, vocab)

    def compute_output_shape(self, sequence_output_shape, masked_lm_positions_shape):
        return (sequence_output_shape[0], masked_lm_positions_shape[1], self.vocab_size)
