"""The one packer, through the Preprocessor: property tests on random batches (hypothesis)."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keras_bert.text import Preprocessor
from keras_bert.text.packer import pack_segments

WORDS = ["the", "king", "is", "dead", "long", "live", "unaffable", "Straße", "東京", "naïve", ",", "!",
         "x" * 120, "\u200b", "  "]
texts = st.lists(st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join), max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text_a=texts, text_b=st.none() | texts, seq_length=st.integers(2, 24),
       truncation=st.sampled_from(["round_robin", "waterfall"]))
def test_random_batches_never_crash_and_keep_the_layout(tokenizer, text_a, text_b, seq_length, truncation):
    preprocessor = Preprocessor(tokenizer, seq_length, truncation=truncation)
    pair = text_b is not None
    if pair and (len(text_b) != len(text_a) or seq_length < 3):
        with pytest.raises(ValueError, match="text_b|too small for a text pair"):
            preprocessor(text_a, text_b)
        return
    out = {k: v.numpy() for k, v in preprocessor(text_a, *([text_b] if pair else [])).items()}
    assert all(v.shape == (len(text_a), seq_length) and v.dtype == np.int32 for v in out.values())
    lengths = [tokenizer.tokenize(tf.constant(t)).row_lengths().numpy() if t else np.zeros(0, int)
               for t in ([text_a, text_b] if pair else [text_a])]
    ids, mask, types = out["input_word_ids"], out["input_mask"], out["input_type_ids"]
    for row in range(len(text_a)):
        used = int(mask[row].sum())
        assert mask[row].tolist() == [1] * used + [0] * (seq_length - used)  # a prefix of ones
        assert ids[row, 0] == tokenizer.cls_id and ids[row, used - 1] == tokenizer.sep_id
        assert (ids[row, :used] == tokenizer.sep_id).sum() == len(lengths)
        assert (ids[row, used:] == tokenizer.pad_id).all() and (types[row, used:] == 0).all()
        type_b = int(types[row].sum())
        assert types[row, :used].tolist() == [0] * (used - type_b) + [1] * type_b  # 0s then 1s
        assert (type_b > 0) == pair
        pieces = [int(n[row]) for n in lengths]
        budget = seq_length - 1 - len(pieces)
        assert used - 1 - len(pieces) == min(sum(pieces), budget)  # the truncation budget is used


def test_pack_segments_places_labels_alongside_ids():
    ids = tf.ragged.constant([[7, 8, 9], [5]])
    labels = tf.ragged.constant([[1, 0, 2], [3]])
    packed = pack_segments(ids, 4, 101, 102)["input_word_ids"].numpy()
    packed_labels = pack_segments(labels, 4, 0, 0)["input_word_ids"].numpy()
    assert packed.tolist() == [[101, 7, 8, 102], [101, 5, 102, 0]]
    assert packed_labels.tolist() == [[0, 1, 0, 0], [0, 3, 0, 0]]  # the same trimming and layout


def test_roberta_layout_doubles_the_pair_separator_with_one_token_type():
    a, b = tf.ragged.constant([[7, 8, 9], [5]]), tf.ragged.constant([[4, 4, 4, 4], [6]])
    packed = pack_segments([a, b], 9, cls_id=0, sep_id=2, pad_id=1, layout="roberta")
    assert packed["input_word_ids"].numpy().tolist() == [[0, 7, 8, 9, 2, 2, 4, 4, 2],  # round robin: 3 + 2
                                                         [0, 5, 2, 2, 6, 2, 1, 1, 1]]
    assert packed["input_mask"].numpy().tolist() == [[1] * 9, [1] * 6 + [0] * 3]
    assert not packed["input_type_ids"].numpy().any()
    longest = pack_segments([a[1:], b[1:]], 9, 0, 2, 1, layout="roberta", padding="longest")
    assert longest["input_word_ids"].numpy().tolist() == [[0, 5, 2, 2, 6, 2]]
    with pytest.raises(ValueError, match="layout='xlnet' is not supported"):
        pack_segments([a], 9, 0, 2, layout="xlnet")
    with pytest.raises(ValueError, match="needs at least 4 positions"):
        pack_segments([a, b], 3, 0, 2, layout="roberta")


def test_pair_specials_place_the_second_text_after_its_layouts_separators():
    from keras_bert.text.packer import pair_specials

    assert pair_specials("bert") == (2, 3) and pair_specials("roberta") == (3, 4)
    packed = pack_segments([tf.ragged.constant([[7, 8]]), tf.ragged.constant([[9]])], 9, 0, 2, 1, layout="roberta")
    assert packed["input_word_ids"].numpy()[0, pair_specials("roberta")[0] + 2] == 9
