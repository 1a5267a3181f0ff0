"""keras_bert.models."""
