"""BERT's input embeddings: word + segment + absolute position, LayerNorm, dropout."""

import keras
from keras import ops

from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout


def _check_ids_in_range(ids, size, input_name, config_name, hint):
    """One-line error for ids outside `[0, size)` when `ids` hold values (eager calls).

    Out of range, backends disagree and mostly fail badly: TF CPU raises a GatherV2 trace, TF
    GPU and JAX return zeros or NaN silently, torch raises IndexError. Symbolic tensors (inside
    `tf.function`, `jax.jit`, export tracing) carry no values and are not checked; keras_bert's
    own pipelines only produce ids from the model's vocab.
    """
    if ids is None:
        return
    try:
        values = ops.convert_to_numpy(ids)
    except Exception:  # a symbolic tensor or tracer: nothing to check at trace time
        return
    if values.size and (values.min() < 0 or values.max() >= size):
        bad = values.max() if values.max() >= size else values.min()
        raise ValueError(f"{input_name} holds {int(bad)}, outside [0, {config_name}={size}); {hint}.")


@keras.saving.register_keras_serializable(package="keras_bert")
class BertEmbeddings(BertLayer):
    """Sums word, segment (token type) and learned absolute position embeddings.

    Positions are 0..seq-1, or `input_position_ids` (int `[batch, seq]`) when given, as in
    packed rows where they restart at each example; each is shifted by `position_offset` rows
    (RoBERTa's `padding_idx + 1`: its first token reads row 2).

    Args:
        vocab_size: rows of the word-embedding matrix.
        hidden_size: embedding width.
        max_position_embeddings: longest sequence accepted.
        type_vocab_size: number of segment ids.
        dropout_rate: dropout applied after the LayerNorm.
        initializer_range: stddev of the truncated-normal initializer.
        layer_norm_eps: LayerNorm epsilon.
        position_offset: the row of position 0 in the position table.

    Example:
        >>> layer = BertEmbeddings(vocab_size=100, hidden_size=16)
        >>> ids = keras.ops.ones((2, 5), "int32")
        >>> layer(ids, keras.ops.zeros((2, 5), "int32")).shape
        (2, 5, 16)
    """

    def __init__(self, vocab_size, hidden_size, max_position_embeddings=512, type_vocab_size=2,
                 dropout_rate=0.1, initializer_range=0.02, layer_norm_eps=1e-12, position_offset=0, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(vocab_size=vocab_size, hidden_size=hidden_size,
            max_position_embeddings=max_position_embeddings, type_vocab_size=type_vocab_size,
            dropout_rate=dropout_rate, initializer_range=initializer_range,
            layer_norm_eps=layer_norm_eps, position_offset=position_offset)
        initializer = keras.initializers.TruncatedNormal(stddev=initializer_range)
        self.word_embeddings = keras.layers.Embedding(
            vocab_size, hidden_size, embeddings_initializer=initializer,
            dtype=self.dtype_policy, name="word_embeddings")
        self.token_type_embeddings = keras.layers.Embedding(
            type_vocab_size, hidden_size, embeddings_initializer=initializer,
            dtype=self.dtype_policy, name="token_type_embeddings")
        self.position_embeddings = keras.layers.Embedding(
            max_position_embeddings, hidden_size, embeddings_initializer=initializer,
            dtype=self.dtype_policy, name="position_embeddings")
        self.layer_norm = keras.layers.LayerNormalization(
            epsilon=layer_norm_eps, dtype=self.dtype_policy, name="layer_norm")
        self.dropout = FastDropout(dropout_rate, dtype=self.dtype_policy, name="dropout")

    def build(self, input_word_ids_shape, input_type_ids_shape=None, input_position_ids_shape=None):
        for layer in (self.word_embeddings, self.token_type_embeddings, self.position_embeddings):
            layer.build(input_word_ids_shape)
        self.layer_norm.build((None, self.hidden_size))
        self.built = True

    @property
    def embedding_table(self):
        """The word-embedding matrix, [vocab_size, hidden_size] (the MLM head ties to it)."""
        return self.word_embeddings.embeddings

    def call(self, input_word_ids, input_type_ids=None, input_position_ids=None, training=None):
        seq_length = ops.shape(input_word_ids)[1]
        longest = self.max_position_embeddings - self.position_offset
        if isinstance(seq_length, int) and seq_length > longest:
            offset = f" - position_offset={self.position_offset}" if self.position_offset else ""
            raise ValueError(
                f"Sequence length {seq_length} exceeds max_position_embeddings="
                f"{self.max_position_embeddings}{offset}; truncate inputs to at most {longest} tokens.")
        _check_ids_in_range(input_word_ids, self.vocab_size, "input_word_ids", "vocab_size",
                            "tokenize with the vocab.txt the model was trained with")
        _check_ids_in_range(input_type_ids, self.type_vocab_size, "input_type_ids", "type_vocab_size",
                            "segment ids are 0 for the first text and 1 for the second")
        _check_ids_in_range(input_position_ids, longest, "input_position_ids",
                            "max_position_embeddings", "positions restart at 0 for each packed example")
        x = self.word_embeddings(input_word_ids)  # (batch, seq, hidden)
        if input_type_ids is None:
            input_type_ids = ops.zeros_like(input_word_ids)
        x = x + self.token_type_embeddings(input_type_ids)
        if input_position_ids is None:
            start = self.position_offset
            positions = self.position_embeddings.embeddings[start:start + seq_length]  # (seq, hidden)
            x = x + ops.expand_dims(ops.cast(positions, x.dtype), 0)  # (1, seq, hidden)
        else:  # packed rows: positions restart at each example
            if self.position_offset:
                input_position_ids = input_position_ids + self.position_offset
            x = x + ops.cast(self.position_embeddings(input_position_ids), x.dtype)  # (batch, seq, hidden)
        if not training:
            return self.layer_norm(x)
        # In training, LayerNorm on (batch * seq, hidden): see TransformerEncoderBlock.call.
        x = self.dropout(self.layer_norm(ops.reshape(x, (-1, self.hidden_size))), training=training)
        return ops.reshape(x, (ops.shape(input_word_ids)[0], seq_length, self.hidden_size))

    def compute_output_shape(self, input_word_ids_shape, input_type_ids_shape=None,
                             input_position_ids_shape=None):
        return tuple(input_word_ids_shape) + (self.hidden_size,)
