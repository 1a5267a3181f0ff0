"""keras_bert.text."""
