"""keras_bert.models.electra: the ELECTRA family (BERT's config and encoder with `embedding_size`; its converter)."""

import functools

from keras_bert.models.electra.electra_converter import ELECTRA_CONVERTER
from keras_bert.models.model_family import ModelFamily, bert_masked_lm_head

# Its generator's masked-LM head computes the exact GELU whatever the encoder's activation.
ELECTRA = ModelFamily("electra", ("electra",), ELECTRA_CONVERTER,
                      masked_lm_head=functools.partial(bert_masked_lm_head, hidden_act="gelu"))
