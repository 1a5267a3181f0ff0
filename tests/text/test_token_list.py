"""TokenList: the tokenizers' Python lookups, and one item for tf.Module's attribute walk."""

import pytest
import tensorflow as tf

from keras_bert.text.token_list import TokenList


def test_lookups_both_ways_and_one_line_errors():
    tokens = TokenList(["[PAD]", "[UNK]", "hello", "##s"], "vocab.txt")
    assert len(tokens) == 4 and tokens.tokens == ("[PAD]", "[UNK]", "hello", "##s")
    assert tokens.token_to_id("##s") == 3 and tokens.id_to_token("2") == "hello"
    with pytest.raises(KeyError, match=r"Token 'bye' is not in the vocabulary 'vocab.txt'"):
        tokens.token_to_id("bye")
    with pytest.raises(IndexError, match="Token id 4 is out of range; the vocabulary has 4 tokens"):
        tokens.id_to_token(4)
    with pytest.raises(IndexError, match="Token id -1 is out of range"):
        tokens.id_to_token(-1)


def test_a_module_holding_it_flattens_it_as_one_item():
    """tf.Module walks every nested item of its attributes when it lists variables or is saved;
    a tuple of 30,000 tokens is 30,000 items, a TokenList one."""
    def items_walked(tokens):
        module = tf.Module()
        module.tokens, module.weight = tokens, tf.Variable(1.0)
        return len(list(module._flatten(predicate=lambda _: True)))  # pylint: disable=protected-access

    vocab = [f"t{i}" for i in range(30000)]
    assert items_walked(tuple(vocab)) > 30000
    assert items_walked(TokenList(vocab, "vocab.txt")) < 10
