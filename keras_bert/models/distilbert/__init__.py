"""keras_bert.models.distilbert: the DistilBERT family (BERT's config and encoder; its converter)."""

from keras_bert.models.distilbert.distilbert_converter import DISTILBERT_CONVERTER
from keras_bert.models.model_family import ModelFamily

DISTILBERT = ModelFamily("distilbert", ("distilbert",), DISTILBERT_CONVERTER)
