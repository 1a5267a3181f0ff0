"""The packer's core-op trimming equals tf-text's trimmers (which it replaces: TF Serving 2.12 to
2.19.1 lack the `TFText>RoundRobinTrim` kernel) on random pairs (hypothesis) and real text."""

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text as text
from hypothesis import given, settings
from hypothesis import strategies as st

from keras_bert.text import Preprocessor
from keras_bert.text.packer import pack_segments, round_robin_lengths, waterfall_lengths

TRIMMERS = {"round_robin": (round_robin_lengths, text.RoundRobinTrimmer),
            "waterfall": (waterfall_lengths, text.WaterfallTrimmer)}
rows = st.lists(st.integers(0, 40), min_size=1, max_size=8)


def ragged(lengths, offset):
    return tf.ragged.constant([[offset + i for i in range(n)] for n in lengths], tf.int32, ragged_rank=1)


def expected_lengths(trimmer, segments, budget):
    return [s.row_lengths().numpy().tolist() for s in trimmer(budget).trim(segments)]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), budget=st.integers(0, 60), pair=st.booleans(),
       name=st.sampled_from(sorted(TRIMMERS)))
def test_lengths_equal_tensorflow_text_trimmers(data, budget, pair, name):
    lengths_a = data.draw(rows)
    lengths = [lengths_a] + ([data.draw(st.lists(st.integers(0, 40), min_size=len(lengths_a),
                                                 max_size=len(lengths_a)))] if pair else [])
    ours, trimmer = TRIMMERS[name]
    kept = ours([tf.constant(n, tf.int32) for n in lengths], budget)
    segments = [ragged(n, 1000 * (i + 1)) for i, n in enumerate(lengths)]
    assert [k.numpy().tolist() for k in kept] == expected_lengths(trimmer, segments, budget)


def test_edges_equal_round_robin_trimmer():
    # Empty rows, a budget of 0 or 1, an odd budget shared by two long segments, one short segment.
    cases = [([0, 0, 5, 9, 1], [0, 7, 0, 9, 1]), ([3, 40], [40, 3]), ([11], [11])]
    for budget in (0, 1, 2, 3, 21, 79):
        for lengths in cases:
            segments = [ragged(n, 1000 * (i + 1)) for i, n in enumerate(lengths)]
            kept = round_robin_lengths([tf.constant(n) for n in lengths], budget)
            want = expected_lengths(text.RoundRobinTrimmer, segments, budget)
            assert [k.numpy().tolist() for k in kept] == want, (budget, lengths)


@pytest.mark.parametrize("truncation", ["round_robin", "waterfall"])
def test_packing_real_lines_equals_trimmer_and_combine_segments(tokenizer, shakespeare_lines, truncation):
    """2,000 real line pairs (short and long) packed to 8..64 positions: the same ids as tf-text's
    trimmer + `combine_segments` (the library code the packer replaces)."""
    lines = shakespeare_lines[:4000]
    long_lines = [" ".join(lines[i:i + 5]) for i in range(0, 1000, 5)]
    a = tokenizer.tokenize(tf.constant(lines[:1000] + long_lines))
    b = tokenizer.tokenize(tf.constant(lines[1000:2000] + long_lines[::-1]))
    trimmer = TRIMMERS[truncation][1]
    for seq_length in (8, 13, 32, 64):
        for segments in ([a], [a, b]):
            ours = pack_segments(segments, seq_length, 101, 102, truncation=truncation)
            trimmed = trimmer(seq_length - 1 - len(segments)).trim(segments)
            word_ids, type_ids = text.combine_segments(trimmed, 101, 102)
            np.testing.assert_array_equal(ours["input_word_ids"], word_ids.to_tensor(shape=[None, seq_length]))
            np.testing.assert_array_equal(ours["input_type_ids"], type_ids.to_tensor(shape=[None, seq_length]))


def test_trimming_uses_no_tensorflow_text_op(tokenizer):
    """The packed graph holds only core TF ops (the tokenizer's tf-text ops come before it)."""
    preprocessor = Preprocessor(tokenizer, seq_length=16)
    spec = tf.RaggedTensorSpec([None, None], tf.int32)
    graph = tf.function(lambda a, b: preprocessor.pack([a, b])).get_concrete_function(spec, spec).graph
    ops = {node.op for node in graph.as_graph_def().node}
    assert not {op for op in ops if op.startswith("TFText>") or "Trim" in op}, sorted(ops)


def test_packing_runs_in_tflite_with_builtins_only(tokenizer, shakespeare_lines):
    """The fast tokenizer + packer converted as the TFLite text model is: no Flex op, no trimmer
    custom op, and the interpreter's truncated pairs equal the Python packer's."""
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    from keras_bert.export.tflite import _convert, fast_tokenizer

    preprocessor = Preprocessor(fast_tokenizer(tokenizer), seq_length=16, padding="longest")
    module = tf.Module()
    module.pack = tf.function(lambda text_a, text_b: preprocessor(text_a, text_b),
                              input_signature=[tf.TensorSpec([None], tf.string, name=n) for n in ("text_a", "text_b")])
    content = _convert([module.pack.get_concrete_function()], module, "float32")
    interpreter = InterpreterWithCustomOps(model_content=content,
                                           custom_op_registerers=text.tflite_registrar.SELECT_TFTEXT_OPS)
    ops = {op["op_name"] for op in interpreter._get_ops_details()}  # pylint: disable=protected-access
    assert not [op for op in ops if op.startswith("Flex") or "Trim" in op], sorted(ops)
    a = np.array(shakespeare_lines[:40] + [" ".join(shakespeare_lines[:9]), ""], object)
    b = np.array(shakespeare_lines[40:80] + ["short", " ".join(shakespeare_lines[9:20])], object)
    got = interpreter.get_signature_runner()(text_a=a, text_b=b)
    want = preprocessor(tf.constant(list(a)), tf.constant(list(b)))
    for name in ("input_word_ids", "input_type_ids", "input_mask"):
        np.testing.assert_array_equal(got[name], want[name].numpy())
