import inspect

import pytest

from keras_bert.layers import BertEmbeddings, MaskedLMHead, NextSentenceHead, Pooler, TransformerEncoderBlock
from keras_bert.layers.bert_layer import BertLayer


class Scale(BertLayer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(factor=factor)

    def call(self, x):
        return x * self.factor


def test_stored_arguments_are_attributes_and_config_and_survive_from_config():
    layer = Scale(3.0, name="scale")
    assert layer.factor == 3.0 and layer.get_config()["factor"] == 3.0
    clone = Scale.from_config(layer.get_config())
    assert clone.factor == 3.0 and clone.name == "scale"


@pytest.mark.parametrize("layer", [
    BertEmbeddings(vocab_size=30, hidden_size=8, max_position_embeddings=16),
    TransformerEncoderBlock(hidden_size=8, num_heads=2, intermediate_size=16, hidden_act="relu"),
    MaskedLMHead(30, 8, hidden_act="gelu_tanh"),
    Pooler(8, initializer_range=0.05),
    NextSentenceHead(initializer_range=0.05),
], ids=lambda layer: type(layer).__name__)
def test_every_layer_config_names_each_constructor_argument(layer):
    """The config rebuilds the layer in a .keras file: every constructor argument is in it
    (`embedding_layer` is passed again by the model that owns both layers)."""
    config = layer.get_config()
    rebuilt = type(layer).from_config(config)
    assert rebuilt.get_config() == config
    arguments = set(inspect.signature(type(layer).__init__).parameters) - {"self", "kwargs", "embedding_layer"}
    assert arguments <= config.keys()
