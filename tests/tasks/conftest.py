"""Fixtures for the task tests: the fixture files and a tiny encoder for the MiniLM tokenizer of its vocabulary size."""

import os

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "fixtures")


@pytest.fixture
def tiny_encoder(tokenizer):
    import keras_bert

    return keras_bert.build_encoder(keras_bert.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
        max_position_embeddings=64))
