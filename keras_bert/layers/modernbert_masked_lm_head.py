"""ModernBERT's masked-LM head: the prediction head, then the decoder tied to the token embeddings."""

import keras
from keras import ops

from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.gather_rows import gather_rows


@keras.saving.register_keras_serializable(package="keras_bert")
class ModernBertMaskedLMHead(BertLayer):
    """Logits `head(x) @ tok_embeddings^T + decoder_bias`, as `ModernBertForMaskedLM` computes them.

    With `masked_lm_positions` (int `[batch, p]`) the rows are gathered *first* (as BERT's
    `MaskedLMHead`), giving `[batch, p, vocab]`; without, every position: `[batch, seq, vocab]`.
    The prediction head and the embeddings belong to the encoder (`ModernBertEncoder.head`,
    `.embeddings`): Hugging Face's `head` is one set of weights that its masked-LM model reads per
    token and its classifiers read pooled, so this layer owns only the decoder bias.

    Args:
        vocab_size: size of the output vocabulary.
        decoder_bias: add a per-token output bias (`decoder_bias` in the config).
        prediction_head: the encoder's `ModernBertPredictionHead`. Not serialized (nor the next):
            the model owning both passes them again when rebuilt, as for `MaskedLMHead`.
        embedding_layer: the encoder's `ModernBertEmbeddings` (its `embedding_table` is the decoder).

    Example:
        >>> embeddings = ModernBertEmbeddings(vocab_size=100, hidden_size=16)
        >>> head = ModernBertMaskedLMHead(100, prediction_head=ModernBertPredictionHead(16),
        ...                               embedding_layer=embeddings)
        >>> head(embeddings(keras.ops.ones((2, 5), "int32"))).shape
        (2, 5, 100)
    """

    def __init__(self, vocab_size, decoder_bias=True, prediction_head=None, embedding_layer=None, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(vocab_size=vocab_size, decoder_bias=bool(decoder_bias))
        # Not tracked as sublayers: the encoder saves, counts and trains them once.
        object.__setattr__(self, "prediction_head", prediction_head)
        object.__setattr__(self, "embedding_layer", embedding_layer)

    def build(self, sequence_output_shape, masked_lm_positions_shape=None):
        if self.prediction_head is None or self.embedding_layer is None:
            raise ValueError("ModernBertMaskedLMHead needs `prediction_head` and `embedding_layer`: pass "
                             "the ModernBertEncoder's `.head` and `.embeddings`.")
        if not self.prediction_head.built:
            self.prediction_head.build(sequence_output_shape)
        self.bias = (self.add_weight(shape=(self.vocab_size,), initializer="zeros", name="bias")
                     if self.decoder_bias else None)
        self.built = True

    def call(self, sequence_output, masked_lm_positions=None):
        x = sequence_output if masked_lm_positions is None else gather_rows(sequence_output, masked_lm_positions)
        x = self.prediction_head(x)  # (batch, rows, hidden)
        table = ops.cast(self.embedding_layer.embedding_table, x.dtype)  # (vocab, hidden)
        logits = ops.einsum("brh,vh->brv", x, table)  # (batch, rows, vocab)
        return logits + ops.cast(self.bias, x.dtype) if self.bias is not None else logits

    def compute_output_shape(self, sequence_output_shape, masked_lm_positions_shape=None):
        rows = sequence_output_shape[1] if masked_lm_positions_shape is None else masked_lm_positions_shape[1]
        return (sequence_output_shape[0], rows, self.vocab_size)
