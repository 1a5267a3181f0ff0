"""keras_bert: BERT for TensorFlow/Keras. Public API: explicit re-exports only."""

from keras_bert.config import BertConfig, PRESETS

__version__ = "0.1.0"
