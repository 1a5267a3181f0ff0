"""keras_bert.models.modernbert: the ModernBERT family (config, encoder, weight names, converter, record)."""

from keras_bert.models.modernbert.modernbert_config import MODEL_TYPES as HF_MODEL_TYPES, ModernBertConfig
from keras_bert.models.modernbert.modernbert_encoder import ModernBertEncoder, encoder_from_huggingface
from keras_bert.models.modernbert.modernbert_weights import (
    HF_PREFIX,
    encoder_tensors,
    encoder_variable_names,
    load_encoder_weights,
    to_canonical,
    to_huggingface,
)
from keras_bert.models.modernbert.modernbert_family import MODERNBERT
