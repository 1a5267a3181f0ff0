"""MODERNBERT: the ModernBERT family's record (its config, encoder, converter, pretraining)."""

from keras_bert.layers.modernbert_masked_lm_head import ModernBertMaskedLMHead
from keras_bert.models.model_family import ModelFamily
from keras_bert.models.modernbert.modernbert_config import ModernBertConfig
from keras_bert.models.modernbert.modernbert_converter import MODERNBERT_CONVERTER
from keras_bert.models.modernbert.modernbert_encoder import ModernBertEncoder


def masked_lm_head(config, encoder, dtype=None, name="mlm_head"):
    """ModernBERT's masked-LM head: the encoder's prediction `head` per token, the decoder tied."""
    return ModernBertMaskedLMHead(config.vocab_size, decoder_bias=config.decoder_bias, prediction_head=encoder.head,
                                  embedding_layer=encoder.embeddings, dtype=dtype, name=name)


# Its `head.*` is the encoder's pooler (what sequence heads read) and, per token, what its token and span heads
# and its masked LM read; it pretrains with 30 % masking and no sentence pairs.
MODERNBERT = ModelFamily("modernbert", ("modernbert",), MODERNBERT_CONVERTER, encoder_class=ModernBertEncoder,
                         tokenizer="byte_bpe", mask_rate=0.3, masked_lm_head=masked_lm_head,
                         pretraining_config=ModernBertConfig.from_bert_shape)
