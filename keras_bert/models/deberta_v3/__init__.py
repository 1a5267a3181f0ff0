"""keras_bert.models.deberta_v3: the DeBERTa-v3 family (config, layers, encoder, converter, keras-hub layout,
record)."""

from keras_bert.models.deberta_v3.deberta_v3_config import MODEL_TYPES as HF_MODEL_TYPES, DebertaV3Config
from keras_bert.models.deberta_v3.deberta_v3_encoder import DebertaV3Encoder
from keras_bert.models.deberta_v3.deberta_v3_family import DEBERTA_V3
