"""byte_level: GPT-2's pre-tokenizer split with byte offsets, and the in-graph BPE merge loop."""

import tensorflow as tf

from keras_bert.text.byte_level import bpe_merge, bytes_to_unicode, pretokenize, special_pattern


def test_pretokenize_keeps_whitespace_runs_as_gpt2_does():
    words, starts, ends = pretokenize(tf.constant(["  hello   world  ", "a\t\tb 's", "x\x00y"]))
    assert words.to_list() == [[b" ", b" hello", b"  ", b" world", b"  "],
                               [b"a", b"\t", b"\t", b"b", b" '", b"s"], [b"x", b"\x00", b"y"]]
    assert starts.to_list()[0] == [0, 1, 7, 9, 15] and ends.to_list()[0] == [1, 7, 9, 15, 17]
    words, _, _ = pretokenize(tf.constant(["a <s>b </s> x"]), special_pattern(["<s>", "</s>"]))
    assert words.to_list() == [[b"a", b" ", b"<s>", b"b", b" ", b"</s>", b" x"]]  # the space stays its own


def test_bpe_merge_takes_the_lowest_rank_leftmost_pair_first():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(["a a", "b c", "aa b"]), tf.constant([0, 1, 2], tf.int64)), 3)
    symbols = tf.ragged.constant([["a", "a", "a", "b", "c"], ["a"], ["a", "a", "b"] + ["x"] * 40, []])
    merged = bpe_merge(symbols, table, tf.constant(3, tf.int64)).to_list()
    assert merged == [[b"aa", b"a", b"bc"], [b"a"], [b"aab"] + [b"x"] * 40, []]
    assert bytes_to_unicode()[32] == "Ġ" and len(set(bytes_to_unicode())) == 256
