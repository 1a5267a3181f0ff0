import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text as text

from keras_bert.text import Preprocessor, Tokenizer

NAMES = ("input_word_ids", "input_mask", "input_type_ids")


def truncate_seq_pair(tokens_a, tokens_b, max_length):
    """Google BERT's run_classifier.py `_truncate_seq_pair`, verbatim logic."""
    tokens_a, tokens_b = list(tokens_a), list(tokens_b)
    while len(tokens_a) + len(tokens_b) > max_length:
        if len(tokens_a) > len(tokens_b):
            tokens_a.pop()
        else:
            tokens_b.pop()
    return tokens_a, tokens_b


@pytest.fixture(scope="module")
def play_lines(shakespeare_lines):
    return [line.strip() for line in shakespeare_lines[:1000]]


def as_numpy(outputs):
    return {name: outputs[name].numpy() for name in NAMES}


def test_layout_type_ids_mask_and_padding(tokenizer):
    outputs = as_numpy(Preprocessor(tokenizer, seq_length=10)(["Hello world", ""], ["Hi", ""]))
    np.testing.assert_array_equal(outputs["input_word_ids"], [
        [101, 7592, 2088, 102, 7632, 102, 0, 0, 0, 0],  # [CLS] hello world [SEP] hi [SEP] [PAD]...
        [101, 102, 102, 0, 0, 0, 0, 0, 0, 0]])  # empty strings still give [CLS] [SEP] [SEP]
    np.testing.assert_array_equal(outputs["input_type_ids"], [
        [0, 0, 0, 0, 1, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(outputs["input_mask"], [
        [1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]])
    single = as_numpy(Preprocessor(tokenizer, seq_length=4)(["", "Hello world, friend"]))
    np.testing.assert_array_equal(single["input_word_ids"], [[101, 102, 0, 0], [101, 7592, 2088, 102]])
    assert all(v.dtype == np.int32 and v.shape == (2, 4) for v in single.values())


def test_matches_hugging_face_without_truncation(tokenizer, hf_uncased, play_lines):
    a, b = play_lines[:500], play_lines[500:]
    ours = as_numpy(Preprocessor(tokenizer, seq_length=64)(a, b))
    ref = hf_uncased(a, b, padding="max_length", max_length=64, return_tensors="np")
    assert ref["input_ids"].shape == (500, 64)  # nothing was longer than 64
    np.testing.assert_array_equal(ours["input_word_ids"], ref["input_ids"])
    np.testing.assert_array_equal(ours["input_type_ids"], ref["token_type_ids"])
    np.testing.assert_array_equal(ours["input_mask"], ref["attention_mask"])
    ours = as_numpy(Preprocessor(tokenizer, seq_length=8)(a))  # single segments, truncated
    ref = hf_uncased(a, padding="max_length", truncation=True, max_length=8, return_tensors="np")
    np.testing.assert_array_equal(ours["input_word_ids"], ref["input_ids"])
    np.testing.assert_array_equal(ours["input_mask"], ref["attention_mask"])


@pytest.mark.parametrize("truncation", ["round_robin", "longest_first"])
@pytest.mark.parametrize("seq_length", [3, 8, 16, 17])
def test_pair_truncation_is_berts_truncate_seq_pair(tokenizer, play_lines, truncation, seq_length):
    a, b = play_lines[:300], play_lines[300:600]
    outputs = as_numpy(Preprocessor(tokenizer, seq_length, truncation=truncation)(a, b))
    pieces_a, pieces_b = tokenizer.tokenize(a).to_list(), tokenizer.tokenize(b).to_list()
    for i in range(len(a)):
        kept_a, kept_b = truncate_seq_pair(pieces_a[i], pieces_b[i], seq_length - 3)
        expected = [101] + kept_a + [102] + kept_b + [102]
        expected += [0] * (seq_length - len(expected))
        assert outputs["input_word_ids"][i].tolist() == expected


def test_truncation_is_fair_to_both_segments(tokenizer):
    long_a, long_b, short = " ".join(["cat"] * 50), " ".join(["dog"] * 50), "a b"
    outputs = as_numpy(Preprocessor(tokenizer, 16)([long_a, short, long_a], [long_b, long_b, short]))
    type_ids, mask = outputs["input_type_ids"], outputs["input_mask"]
    length_a = mask.sum(1) - type_ids.sum(1) - 2  # minus [CLS], first [SEP]
    length_b = type_ids.sum(1) - 1  # minus last [SEP]
    assert length_a.tolist() == [7, 2, 11] and length_b.tolist() == [6, 11, 2]  # 13 pieces shared
    waterfall = as_numpy(Preprocessor(tokenizer, 16, truncation="waterfall")([long_a, short], [long_b, long_b]))
    assert (waterfall["input_type_ids"].sum(1) - 1).tolist() == [0, 11]  # A first, B the rest


def test_combine_matches_tensorflow_text(tokenizer, play_lines):
    """The dense packing equals `text.combine_segments` + `to_tensor` (the library it replaces)."""
    preprocessor = Preprocessor(tokenizer, seq_length=24)
    segments = [tokenizer.tokenize(play_lines[:200]), tokenizer.tokenize(play_lines[200:400])]
    trimmed = text.RoundRobinTrimmer(24 - 3).trim(segments)
    word_ids, type_ids = text.combine_segments(trimmed, 101, 102)
    ours = preprocessor.pack(segments)
    np.testing.assert_array_equal(ours["input_word_ids"], word_ids.to_tensor(shape=[None, 24]))
    np.testing.assert_array_equal(ours["input_type_ids"], type_ids.to_tensor(shape=[None, 24]))
    np.testing.assert_array_equal(ours["input_mask"], tf.ones_like(word_ids).to_tensor(shape=[None, 24]))
    dense = preprocessor.pack([segments[0].to_tensor(), segments[1].to_tensor()])  # dense in: no [PAD]s kept
    assert not np.array_equal(dense["input_word_ids"], ours["input_word_ids"])  # padding counts as ids
    assert preprocessor.pack(segments[0])["input_word_ids"].shape == (200, 24)


def test_scalars_tf_data_and_tf_function(tokenizer, play_lines):
    preprocessor = Preprocessor(tokenizer, seq_length=12)
    a, b = play_lines[:6], play_lines[6:12]
    expected = as_numpy(preprocessor(a, b))
    scalar = as_numpy(preprocessor(a[0], b[0]))
    assert all(scalar[n].tolist() == expected[n][0].tolist() for n in NAMES)
    unbatched = tf.data.Dataset.from_tensor_slices((a, b)).map(preprocessor).batch(6)
    batched = tf.data.Dataset.from_tensor_slices((a, b)).batch(6).map(preprocessor)
    graph = tf.function(preprocessor.__call__)(tf.constant(a), tf.constant(b))
    for outputs in [next(iter(unbatched)), next(iter(batched)), graph]:
        for name in NAMES:
            np.testing.assert_array_equal(outputs[name], expected[name])
    single = tf.data.Dataset.from_tensor_slices(a).batch(3).map(preprocessor)
    np.testing.assert_array_equal(next(iter(single))["input_word_ids"], preprocessor(a[:3])["input_word_ids"])


class _Serving(tf.Module):
    def __init__(self, preprocessor):
        super().__init__()
        self.preprocessor = preprocessor

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([None], tf.string)])
    def pairs(self, text_a, text_b):
        return self.preprocessor(text_a, text_b)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def single(self, text_a):
        return self.preprocessor(text_a)


RELOAD = """
import json, sys
import tensorflow as tf
import tensorflow_text  # registers the tokenizer ops; keras_bert is not imported
texts = json.loads(sys.argv[1])
results = {}
for export_dir in sys.argv[2:]:
    module = tf.saved_model.load(export_dir)
    pairs = module.pairs(tf.constant(texts["a"]), tf.constant(texts["b"]))
    single = module.single(tf.constant(texts["a"]))
    results[export_dir] = {"pairs": {k: v.numpy().tolist() for k, v in pairs.items()},
                           "single": {k: v.numpy().tolist() for k, v in single.items()}}
print(json.dumps(results))
"""


@pytest.mark.slow
def test_saved_model_reloaded_in_a_fresh_process(vocab_path, tmp_path, hard_cases, play_lines):
    a = play_lines[:20] + hard_cases
    b = list(reversed(a))
    modules = {}
    for normalization in ["reference", "fast"]:
        module = _Serving(Preprocessor(Tokenizer(vocab_path, normalization=normalization), seq_length=32))
        export_dir = str(tmp_path / normalization)
        tf.saved_model.save(module, export_dir)
        assert os.path.isfile(os.path.join(export_dir, "assets", "vocab.txt"))  # the vocab_asset travels
        modules[export_dir] = module
    result = subprocess.run([sys.executable, "-c", RELOAD, json.dumps({"a": a, "b": b}), *modules],
                            capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"})
    assert result.returncode == 0, result.stderr[-3000:]
    reloaded = json.loads(result.stdout.strip().splitlines()[-1])
    for export_dir, module in modules.items():
        for key, eager in [("pairs", module.preprocessor(a, b)), ("single", module.preprocessor(a))]:
            for name in NAMES:
                assert reloaded[export_dir][key][name] == eager[name].numpy().tolist(), (export_dir, key, name)


def test_fast_preprocessor_converts_to_tflite(vocab_path):
    """normalization="fast" + round_robin runs in TFLite with builtins and tf-text custom ops only."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    module = _Serving(Preprocessor(Tokenizer(vocab_path, normalization="fast"), seq_length=16))
    converter = tf.lite.TFLiteConverter.from_concrete_functions([module.pairs.get_concrete_function()], module)
    converter.allow_custom_ops = True
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # no Select-TF (Flex)
    interpreter = litert.InterpreterWithCustomOps(
        model_content=converter.convert(), custom_op_registerers=text.tflite_registrar.SELECT_TFTEXT_OPS)
    a = ["Hello world, how are you today my friend?", "x", ""]
    b = ["Fine, thanks for asking, and you?", "", "y"]
    outputs = interpreter.get_signature_runner()(text_a=np.array(a, object), text_b=np.array(b, object))
    expected = module.pairs(tf.constant(a), tf.constant(b))
    for name in NAMES:
        np.testing.assert_array_equal(outputs[name], expected[name])


def test_errors(tokenizer):
    with pytest.raises(ValueError, match="seq_length=1 is too small"):
        Preprocessor(tokenizer, seq_length=1)
    with pytest.raises(ValueError, match="truncation='middle' is not supported"):
        Preprocessor(tokenizer, truncation="middle")
    two = Preprocessor(tokenizer, seq_length=2)
    assert two(["hello"])["input_word_ids"].numpy().tolist() == [[101, 102]]  # no room for text
    with pytest.raises(ValueError, match="seq_length=2 is too small for a text pair"):
        two(["a"], ["b"])
    assert Preprocessor(tokenizer, seq_length=3)(["a"], ["b"])["input_word_ids"].numpy().tolist() == [[101, 102, 102]]
    with pytest.raises(ValueError, match="1 or 2 segments"):
        Preprocessor(tokenizer).pack([tokenizer.tokenize(["a"])] * 3)
