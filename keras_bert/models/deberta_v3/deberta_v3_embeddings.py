"""DeBERTa's input embeddings: words (+ absolute positions, + token types where it has them), LayerNorm,
zeroed on padding, dropout."""

import keras
from keras import ops

from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout


@keras.saving.register_keras_serializable(package="keras_bert")
class DebertaV3Embeddings(BertLayer):
    """HF's `DebertaV2Embeddings`: word embeddings, plus absolute positions where `position_biased_input`
    and token types where `type_vocab_size` > 0 (DeBERTa-v3 has neither), LayerNorm, times the padding mask.

    Args:
        vocab_size, hidden_size: the word table's shape.
        max_position_embeddings: rows of the absolute position table (built only if `position_biased_input`).
        type_vocab_size: token type rows (0: none, the token type ids are ignored).
        position_biased_input: add absolute position embeddings.
        dropout_rate, initializer_range, layer_norm_eps: as the encoder's.

    Example:
        >>> ids = keras.ops.ones((2, 5), "int32")
        >>> DebertaV3Embeddings(100, 16)(ids, ids, ids).shape
        (2, 5, 16)
    """

    def __init__(self, vocab_size, hidden_size, max_position_embeddings=512, type_vocab_size=0,
                 position_biased_input=False, dropout_rate=0.1, initializer_range=0.02, layer_norm_eps=1e-7,
                 **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(vocab_size=vocab_size, hidden_size=hidden_size,
                             max_position_embeddings=max_position_embeddings, type_vocab_size=type_vocab_size,
                             position_biased_input=position_biased_input, dropout_rate=dropout_rate,
                             initializer_range=initializer_range, layer_norm_eps=layer_norm_eps)

        def table(rows, name):
            return keras.layers.Embedding(rows, hidden_size, dtype=self.dtype_policy, name=name,
                                          embeddings_initializer=keras.initializers.TruncatedNormal(
                                              stddev=initializer_range))

        self.word_embeddings = table(vocab_size, "word_embeddings")
        self.position_embeddings = table(max_position_embeddings, "position_embeddings") if (
            position_biased_input) else None
        self.token_type_embeddings = table(type_vocab_size, "token_type_embeddings") if type_vocab_size else None
        self.layer_norm = keras.layers.LayerNormalization(epsilon=layer_norm_eps, dtype=self.dtype_policy,
                                                          name="layer_norm")
        self.dropout = FastDropout(dropout_rate, dtype=self.dtype_policy, name="dropout")

    def build(self, input_word_ids_shape, input_mask_shape=None, input_type_ids_shape=None):
        for layer in (self.word_embeddings, self.position_embeddings, self.token_type_embeddings):
            if layer is not None:
                layer.build(input_word_ids_shape)
        self.layer_norm.build((None, self.hidden_size))
        self.built = True

    @property
    def embedding_table(self):
        """The word-embedding matrix, [vocab_size, hidden_size] (the masked-LM head ties to it)."""
        return self.word_embeddings.embeddings

    def call(self, input_word_ids, input_mask, input_type_ids=None, training=None):
        seq_length = ops.shape(input_word_ids)[1]
        if isinstance(seq_length, int) and seq_length > self.max_position_embeddings:
            raise ValueError(f"Sequence length {seq_length} exceeds max_position_embeddings="
                             f"{self.max_position_embeddings}; truncate inputs to at most "
                             f"{self.max_position_embeddings} tokens.")
        x = self.word_embeddings(input_word_ids)  # (batch, seq, hidden)
        if self.position_embeddings is not None:
            positions = self.position_embeddings.embeddings[:seq_length]  # (seq, hidden)
            x = x + ops.expand_dims(ops.cast(positions, x.dtype), 0)
        if self.token_type_embeddings is not None and input_type_ids is not None:
            x = x + self.token_type_embeddings(input_type_ids)
        x = self.layer_norm(x) * ops.cast(ops.expand_dims(input_mask, -1), x.dtype)  # padding rows are zeros
        return self.dropout(x, training=training)

    def compute_output_shape(self, input_word_ids_shape, input_mask_shape=None, input_type_ids_shape=None):
        return tuple(input_word_ids_shape) + (self.hidden_size,)
