"""ModernBERT's embeddings: token embeddings, a LayerNorm (no bias by default) and dropout; no positions."""

import keras

from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout


@keras.saving.register_keras_serializable(package="keras_bert")
class ModernBertEmbeddings(BertLayer):
    """`Dropout(LayerNorm(tok_embeddings[ids]))`; positions come later, as rotary embeddings.

    Args:
        vocab_size: rows of the token-embedding matrix.
        hidden_size: width of the embeddings.
        norm_eps: LayerNorm epsilon.
        norm_bias: a LayerNorm with a bias (beta).
        dropout_rate: dropout after the LayerNorm (`embedding_dropout`).
        initializer_range: stddev of the truncated-normal initializer.

    Example:
        >>> embeddings = ModernBertEmbeddings(vocab_size=100, hidden_size=16)
        >>> embeddings(keras.ops.ones((2, 5), "int32")).shape
        (2, 5, 16)
    """

    def __init__(self, vocab_size, hidden_size, norm_eps=1e-5, norm_bias=False, dropout_rate=0.0,
                 initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(vocab_size=vocab_size, hidden_size=hidden_size, norm_eps=norm_eps,
                             norm_bias=bool(norm_bias), dropout_rate=dropout_rate,
                             initializer_range=initializer_range)
        self.tok_embeddings = keras.layers.Embedding(
            vocab_size, hidden_size, dtype=self.dtype_policy, name="tok_embeddings",
            embeddings_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range))
        self.norm = keras.layers.LayerNormalization(epsilon=norm_eps, center=self.norm_bias,
                                                    dtype=self.dtype_policy, name="norm")
        self.dropout = FastDropout(dropout_rate, dtype=self.dtype_policy)

    def build(self, input_ids_shape):
        self.tok_embeddings.build(input_ids_shape)
        self.norm.build((None, None, self.hidden_size))
        self.built = True

    @property
    def embedding_table(self):
        """The `(vocab, hidden)` token-embedding matrix (tied to the masked-LM decoder)."""
        return self.tok_embeddings.embeddings

    def call(self, input_ids, training=None):
        return self.dropout(self.norm(self.tok_embeddings(input_ids)), training=training)

    def compute_output_shape(self, input_ids_shape):
        return tuple(input_ids_shape) + (self.hidden_size,)
