"""Tokenizer.tokenize_with_offsets: ids as tokenize_words, character spans as Hugging Face's offsets."""

import pytest
import tensorflow as tf

from keras_bert.text import Tokenizer


@pytest.fixture(scope="module")
def lines(shakespeare_lines):
    return [line.rstrip("\n") for line in shakespeare_lines[:1500]]


def _check_against_hugging_face(tokenizer, hf_uncased, texts):
    ids, starts, ends = tokenizer.tokenize_with_offsets(tf.constant(texts))
    assert ids.to_list() == tokenizer.tokenize_words(tf.constant(texts)).to_list()
    reference = hf_uncased(texts, add_special_tokens=False, return_offsets_mapping=True)
    flat = [t.merge_dims(1, 2).to_list() for t in (ids, starts, ends)]
    for i, text in enumerate(texts):
        assert flat[0][i] == reference["input_ids"][i], text
        assert list(zip(flat[1][i], flat[2][i])) == [tuple(o) for o in reference["offset_mapping"][i]], text


SPECIAL = ["The capital is [MASK]. [SEP]x[CLS]", "[mask] [MASK][MASK] Ünï [PAD]", "a\x00[MASK]b", "東[SEP]京"]


def test_reference_offsets_match_hugging_face(vocab_path, hf_uncased, hard_cases, lines):
    _check_against_hugging_face(Tokenizer(vocab_path), hf_uncased, hard_cases + SPECIAL + lines)
    split = Tokenizer(vocab_path, split_special_tokens=True)  # Google's: "[", "mask", "]"
    assert split.tokenize_with_offsets(SPECIAL)[0].to_list() == split.tokenize_words(SPECIAL).to_list()


def test_fast_offsets_match_hugging_face_on_plain_text(vocab_path, hf_uncased, lines):
    _check_against_hugging_face(Tokenizer(vocab_path, normalization="fast"), hf_uncased, lines)


def test_spans_cut_the_original_text(vocab_path):
    tokenizer = Tokenizer(vocab_path)
    text = "Héllo, WÖRLD! 東京 naïve" + " x" * 3 + " " + "y" * 120
    ids, starts, ends = tokenizer.tokenize_with_offsets(text)  # scalar in: [(words), (pieces)]
    assert ids.shape.rank == 2
    spans = [text[s:e] for s, e in zip(starts.flat_values.numpy(), ends.flat_values.numpy())]
    assert spans[:7] == ["Héllo", ",", "WÖRLD", "!", "東", "京", "naïve"]  # original characters
    assert spans[-1] == "y" * 120  # an over-long word's [UNK] spans the whole word
    assert ids.flat_values[-1] == tokenizer.unk_id
