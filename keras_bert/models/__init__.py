"""keras_bert.models: functional builders (encoder, pretrainer, task models)."""

from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.builders import (
    build_classifier,
    build_embedder,
    build_encoder,
    build_pretrainer,
    build_span_labeler,
    build_token_classifier,
)
from keras_bert.models.multiple_negatives_ranking_loss import MultipleNegativesRankingLoss
