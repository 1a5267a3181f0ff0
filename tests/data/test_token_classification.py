"""token_classification_dataset: CoNLL -> (features, first-piece labels, weights)."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.token_classification import read_conll, token_classification_dataset
from keras_bert.text.preprocessor import Preprocessor

CONLL = os.path.join(os.path.dirname(__file__), "fixtures", "ner.conll")
LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]


@pytest.fixture(scope="module")
def tagged(tokenizer):
    """The fixture file at seq_length 32, in file order: (features, label ids, weights)."""
    dataset, labels = token_classification_dataset(CONLL, tokenizer, seq_length=32, labels=LABELS,
                                                   batch_size=2, shuffle=False)
    assert labels == LABELS
    return _collect(dataset)


def _collect(dataset):
    batches = list(dataset)
    features = {k: np.concatenate([b[0][k].numpy() for b in batches]) for k in batches[0][0]}
    return (features, np.concatenate([b[1].numpy() for b in batches]),
            np.concatenate([b[2].numpy() for b in batches]))


def test_read_conll_skips_docstart():
    sentences, tags = read_conll(CONLL)
    assert len(sentences) == 3
    assert sentences[0][:3] == ["Volkswagen", "shares", "rose"]
    assert tags[1] == ["B-PER", "I-PER", "O", "B-PER", "I-PER", "O", "B-LOC", "O"]
    assert all("-DOCSTART-" not in s for s in sentences)


def test_label_on_first_piece_only(tokenizer, tagged):
    features, label_ids, weights = tagged
    sentences, tags = read_conll(CONLL)
    all_words = [w for words in sentences for w in words]
    word_pieces = dict(zip(all_words, tokenizer.tokenize(tf.constant(all_words)).to_list()))
    assert label_ids.dtype == np.int32 and weights.dtype == np.float32
    assert label_ids.shape == weights.shape == features["input_word_ids"].shape == (3, 32)
    for i, (words, word_tags) in enumerate(zip(sentences, tags)):
        # Expected per-position labels/weights, built word by word with the eager tokenizer.
        expected_ids, expected_labels, expected_weights = [tokenizer.cls_id], [0], [0.0]
        for word, tag in zip(words, word_tags):
            pieces = word_pieces[word]
            expected_ids += pieces
            expected_labels += [LABELS.index(tag)] + [0] * (len(pieces) - 1)
            expected_weights += [1.0] + [0.0] * (len(pieces) - 1)
        expected_ids.append(tokenizer.sep_id)
        n = len(expected_ids)
        np.testing.assert_array_equal(features["input_word_ids"][i, :n], expected_ids)
        np.testing.assert_array_equal(features["input_word_ids"][i, n:], tokenizer.pad_id)
        np.testing.assert_array_equal(label_ids[i, :n], expected_labels + [0])
        np.testing.assert_array_equal(weights[i, :n], expected_weights + [0.0])
        np.testing.assert_array_equal(weights[i, n:], 0.0)
        np.testing.assert_array_equal(label_ids[i, n:], 0)
        np.testing.assert_array_equal(features["input_mask"][i], [1] * n + [0] * (32 - n))
        np.testing.assert_array_equal(features["input_type_ids"][i], 0)
        # One weighted position per word, carrying the word's label in order.
        assert weights[i].sum() == len(words)
        assert [LABELS[y] for y in label_ids[i][weights[i] == 1]] == word_tags


def test_words_split_into_several_pieces(tokenizer, tagged):
    features, label_ids, weights = tagged
    tokens = [tokenizer.id_to_token(t) for t in features["input_word_ids"][2]]
    # "Ouagadougou" (B-LOC) -> 5 pieces; "1996-08-22" (O) -> 5 basic tokens.
    start = tokens.index("ou")
    assert tokens[start:start + 5] == ["ou", "##aga", "##dou", "##go", "##u"]
    np.testing.assert_array_equal(weights[2, start:start + 5], [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(label_ids[2, start:start + 5], [LABELS.index("B-LOC"), 0, 0, 0, 0])
    start = tokens.index("1996")
    assert tokens[start:start + 5] == ["1996", "-", "08", "-", "22"]
    np.testing.assert_array_equal(weights[2, start:start + 5], [1, 0, 0, 0, 0])
    # Accented "Médecins" (B-ORG) is split too, label on "med".
    start = tokens.index("med")
    assert weights[2, start] == 1 and label_ids[2, start] == LABELS.index("B-ORG")
    assert weights[2, start + 1] == 0


def test_ids_match_preprocessor_and_long_sentence_truncated(tokenizer, tagged):
    sentences, _ = read_conll(CONLL)
    texts = tf.constant([" ".join(s) for s in sentences])
    short, _ = token_classification_dataset(CONLL, tokenizer, seq_length=8, labels=LABELS, shuffle=False)
    for seq_length, (features, label_ids, weights) in ((32, tagged), (8, _collect(short))):
        expected = Preprocessor(tokenizer, seq_length)(texts)
        for name, value in expected.items():
            np.testing.assert_array_equal(features[name], value.numpy(), err_msg=f"{name} {seq_length}")
    # seq_length 8: [CLS] + 6 pieces + [SEP]; the truncated tail's words lose their labels.
    np.testing.assert_array_equal(features["input_word_ids"][:, -1], tokenizer.sep_id)
    np.testing.assert_array_equal(features["input_mask"], 1)
    tokens = [tokenizer.id_to_token(t) for t in features["input_word_ids"][0]]
    assert tokens == ["[CLS]", "volkswagen", "shares", "rose", "3", ".", "5", "[SEP]"]
    np.testing.assert_array_equal(weights[0], [0, 1, 1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(label_ids[0], [0, LABELS.index("B-ORG"), 0, 0, 0, 0, 0, 0])
    # Sentence 2: "... Merkel met" -> mer ##kel: the second piece of a cut word is unweighted.
    tokens = [tokenizer.id_to_token(t) for t in features["input_word_ids"][1]]
    assert tokens == ["[CLS]", "angela", "mer", "##kel", "met", "emmanuel", "macro", "[SEP]"]
    np.testing.assert_array_equal(weights[1], [0, 1, 1, 0, 1, 1, 1, 0])


def test_word_dropped_by_tokenizer_keeps_its_label(tokenizer, tmp_path):
    path = tmp_path / "odd.conll"
    path.write_text("Paris B-LOC\n\u200b O\nis O\nbig O\n", encoding="utf-8")
    dataset, labels = token_classification_dataset(str(path), tokenizer, seq_length=8, shuffle=False)
    features, label_ids, weights = _collect(dataset)
    tokens = [tokenizer.id_to_token(t) for t in features["input_word_ids"][0]]
    assert tokens == ["[CLS]", "paris", "[UNK]", "is", "big", "[SEP]", "[PAD]", "[PAD]"]
    assert labels == ["B-LOC", "O"]
    np.testing.assert_array_equal(weights[0], [0, 1, 1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(label_ids[0], [0, 0, 1, 1, 1, 0, 0, 0])


def test_dataset_trains_a_tagger(tokenizer):
    dataset, labels = token_classification_dataset(CONLL, tokenizer, seq_length=16, batch_size=2)
    word_ids = keras.Input([16], dtype="int32", name="input_word_ids")
    inputs = {"input_word_ids": word_ids, "input_mask": keras.Input([16], dtype="int32", name="input_mask"),
              "input_type_ids": keras.Input([16], dtype="int32", name="input_type_ids")}
    hidden = keras.layers.Embedding(tokenizer.vocab_size, 8)(word_ids)
    model = keras.Model(inputs, keras.layers.Dense(len(labels))(hidden))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(dataset, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_bad_input(tokenizer, tmp_path):
    with pytest.raises(ValueError, match=r"label\(s\) \['B-LOC'\] .*not in labels"):
        token_classification_dataset(CONLL, tokenizer, labels=["O", "B-PER", "I-PER", "B-ORG", "I-ORG"])
    one_column = tmp_path / "one.conll"
    one_column.write_text("Paris B-LOC\nrocks\n", encoding="utf-8")
    with pytest.raises(ValueError, match="Line 2 .*one column"):
        read_conll(str(one_column))
    empty = tmp_path / "empty.conll"
    empty.write_text("-DOCSTART- -X- -X- O\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="holds no sentences"):
        read_conll(str(empty))
    with pytest.raises(ValueError, match="seq_length=2"):
        token_classification_dataset(CONLL, tokenizer, seq_length=2)
