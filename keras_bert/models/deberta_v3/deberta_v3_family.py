"""DEBERTA_V3: the DeBERTa-v3 family's record (its converter, encoder, SentencePiece `spm` tokenizer, keras-hub
layout). It pretrains as BERT's masked LM (tied to the words, 15 %) without sentence pairs."""

from keras_bert.models.deberta_v3.deberta_v3_config import MODEL_TYPES
from keras_bert.models.deberta_v3.deberta_v3_converter import DEBERTA_V3_CONVERTER
from keras_bert.models.deberta_v3.deberta_v3_encoder import DebertaV3Encoder
from keras_bert.models.deberta_v3.deberta_v3_keras_hub import DEBERTA_V3_PRESET
from keras_bert.models.model_family import ModelFamily

DEBERTA_V3 = ModelFamily("deberta_v3", MODEL_TYPES, DEBERTA_V3_CONVERTER, encoder_class=DebertaV3Encoder,
                         tokenizer="spm", keras_hub=DEBERTA_V3_PRESET)
