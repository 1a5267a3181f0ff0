"""keras_bert.layers."""
