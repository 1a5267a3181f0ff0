"""keras_bert.export."""
