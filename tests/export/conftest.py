"""Fixtures for the export tests: a small real vocabulary, tiny models with trained-looking weights."""

import os

import pytest

import keras_bert
from tests.export.helpers import randomize


@pytest.fixture(scope="session")
def small_vocab(minilm_dir, tmp_path_factory):
    """The first 6000 tokens of MiniLM's real uncased vocabulary (specials, common words, ## pieces)."""
    with open(os.path.join(minilm_dir, "vocab.txt"), encoding="utf-8") as f:
        tokens = f.read().split("\n")[:6000]
    path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    path.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="session")
def tokenizer(small_vocab):
    return keras_bert.Tokenizer(small_vocab)


@pytest.fixture(scope="session")
def tiny_config(tokenizer):
    return keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_layers=2,
                                 num_heads=2, intermediate_size=64, max_position_embeddings=512)


@pytest.fixture(scope="session")
def tiny_classifier(tiny_config):
    return randomize(keras_bert.build_classifier(tiny_config, num_classes=3), seed=1)


@pytest.fixture(scope="session")
def classifier_export(tiny_classifier, tokenizer, tmp_path_factory):
    """The tiny classifier exported once (checked in a fresh process) to savedmodels/tiny/1."""
    from keras_bert.export import export_saved_model

    export_dir = tmp_path_factory.mktemp("savedmodels") / "tiny" / "1"
    report = export_saved_model(tiny_classifier, export_dir, tokenizer=tokenizer, seq_length=32)
    return report
