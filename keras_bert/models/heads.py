"""HEADS: the head classes (one tuple)."""

from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.multiple_choice_head import MultipleChoiceHead
from keras_bert.models.sequence_head import SequenceHead
from keras_bert.models.span_head import SpanHead
from keras_bert.models.token_head import TokenHead

HEADS = (SequenceHead, TokenHead, SpanHead, EmbedderHead, MultipleChoiceHead)


def hf_head(architectures):
    """The head class of a Hugging Face `architectures` list (config.json), or None (`BertModel`...)."""
    return next((head for name in architectures or () for head in HEADS if head.HF_ARCHITECTURE == name), None)
