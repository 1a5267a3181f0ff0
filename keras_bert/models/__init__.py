"""keras_bert.models: functional builders (encoder, pretrainer, task models)."""

from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.builders import (
    build_classifier,
    build_embedder,
    build_encoder,
    build_multiple_choice,
    build_pretrainer,
    build_span_labeler,
    build_token_classifier,
)
from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.heads import HEADS
from keras_bert.models.multiple_choice_head import MultipleChoiceHead
from keras_bert.models.sequence_head import SequenceHead
from keras_bert.models.span_head import SpanHead
from keras_bert.models.task_head import TaskHead
from keras_bert.models.token_head import TokenHead
from keras_bert.models.multiple_negatives_ranking_loss import MultipleNegativesRankingLoss
