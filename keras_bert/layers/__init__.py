"""keras_bert.layers: the math, on keras.ops only (runs on TF, JAX and PyTorch backends)."""

from keras_bert.layers.activations import gelu, gelu_tanh, get_activation
from keras_bert.layers.bert_embeddings import BertEmbeddings
from keras_bert.layers.bert_layer import BertLayer
from keras_bert.layers.fast_dropout import FastDropout
from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.layers.modernbert_block import ModernBertBlock
from keras_bert.layers.modernbert_embeddings import ModernBertEmbeddings
from keras_bert.layers.modernbert_masked_lm_head import ModernBertMaskedLMHead
from keras_bert.layers.modernbert_prediction_head import ModernBertPredictionHead
from keras_bert.layers.next_sentence_head import NextSentenceHead
from keras_bert.layers.pooler import Pooler
from keras_bert.layers.sentence_pooling import SentencePooling
from keras_bert.layers.transformer_encoder_block import TransformerEncoderBlock
