"""classification_dataset: CSV / TSV / JSONL -> (features, labels), checked against the Preprocessor."""

import csv
import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.classification import classification_dataset, label_vocabulary, num_classes
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.tokenizer import Tokenizer

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
SEQ_LENGTH = 32


@pytest.fixture(scope="module")
def preprocessor(minilm_dir):
    return Preprocessor(Tokenizer(os.path.join(minilm_dir, "vocab.txt")), seq_length=SEQ_LENGTH)


def _collect(dataset):
    batches = list(dataset)
    features = {k: np.concatenate([b[0][k].numpy() for b in batches]) for k in batches[0][0]}
    return features, np.concatenate([b[1].numpy() for b in batches])


def _assert_same(features, expected):
    assert set(features) == {"input_word_ids", "input_mask", "input_type_ids"}
    for name, value in expected.items():
        assert features[name].dtype == np.int32
        np.testing.assert_array_equal(features[name], value.numpy(), err_msg=name)


def test_csv_matches_preprocessor_and_maps_labels_sorted(preprocessor):
    path = os.path.join(FIXTURES, "sentiment.csv")
    dataset, labels = classification_dataset(path, preprocessor, batch_size=4, shuffle=False)
    features, label_ids = _collect(dataset)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["sentence"] == "A gripping, beautifully shot thriller that never lets go."  # quoted comma
    _assert_same(features, preprocessor(tf.constant([r["sentence"] for r in rows])))
    assert labels == ["negative", "positive"]
    np.testing.assert_array_equal(label_ids, [labels.index(r["label"]) for r in rows])
    assert label_ids.dtype == np.int32
    assert features["input_word_ids"].shape == (6, SEQ_LENGTH)


def test_explicit_label_order_is_used(preprocessor):
    path = os.path.join(FIXTURES, "sentiment.csv")
    _, sorted_ids = _collect(classification_dataset(path, preprocessor, shuffle=False)[0])
    dataset, labels = classification_dataset(path, preprocessor, labels=["positive", "negative"], shuffle=False)
    assert labels == ["positive", "negative"]
    np.testing.assert_array_equal(_collect(dataset)[1], 1 - sorted_ids)


def test_tsv_pair_matches_preprocessor_integer_labels_0_1(preprocessor):
    path = os.path.join(FIXTURES, "paraphrase.tsv")
    dataset, labels = classification_dataset(path, preprocessor, text_a="sentence1", text_b="sentence2",
                                             batch_size=3, shuffle=False)
    features, label_ids = _collect(dataset)
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    expected = preprocessor(tf.constant([r[1] for r in rows]), tf.constant([r[2] for r in rows]))
    _assert_same(features, expected)
    np.testing.assert_array_equal(label_ids, [int(r[0]) for r in rows])
    assert labels == [0, 1]
    # Segment B is really there: type id 1 on its pieces, [SEP] twice.
    assert (features["input_type_ids"] == 1).sum(axis=1).min() > 3
    sep = preprocessor.tokenizer.sep_id
    np.testing.assert_array_equal((features["input_word_ids"] == sep).sum(axis=1), 2)


def test_jsonl_pair_with_glue_label_order(preprocessor):
    path = os.path.join(FIXTURES, "nli.jsonl")
    names = ["entailment", "neutral", "contradiction"]
    dataset, labels = classification_dataset(path, preprocessor, text_a="premise", text_b="hypothesis",
                                             labels=names, shuffle=False)
    features, label_ids = _collect(dataset)
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    _assert_same(features, preprocessor(tf.constant([r["premise"] for r in rows]),
                                        tf.constant([r["hypothesis"] for r in rows])))
    np.testing.assert_array_equal(label_ids, [names.index(r["label"]) for r in rows])
    assert labels == names


def test_shuffle_keeps_features_and_labels_together(preprocessor):
    path = os.path.join(FIXTURES, "nli.jsonl")
    kwargs = dict(text_a="premise", text_b="hypothesis", batch_size=2)
    ordered, label_ids = _collect(classification_dataset(path, preprocessor, shuffle=False, **kwargs)[0])
    truth = {tuple(ids): y for ids, y in zip(ordered["input_word_ids"], label_ids)}
    dataset, _ = classification_dataset(path, preprocessor, shuffle=True, seed=3, **kwargs)
    epoch_1, epoch_2 = _collect(dataset), _collect(dataset)
    for features, ys in (epoch_1, epoch_2):
        assert sorted(map(tuple, features["input_word_ids"])) == sorted(truth)
        assert [truth[tuple(ids)] for ids in features["input_word_ids"]] == list(ys)
    assert [tuple(r) for r in epoch_1[0]["input_word_ids"]] != [tuple(r) for r in ordered["input_word_ids"]] \
        or [tuple(r) for r in epoch_2[0]["input_word_ids"]] != [tuple(r) for r in ordered["input_word_ids"]]


def test_integer_labels_not_from_zero_share_one_vocabulary_in_train_and_eval(preprocessor, tmp_path):
    """1-5 stars: classes are vocabulary indices for training *and* evaluation, inside the head."""
    train, dev = tmp_path / "train.csv", tmp_path / "dev.csv"
    train.write_text("sentence,label\ngreat,5\nawful,1\nfine,3\nsuperb,5\n", encoding="utf-8")
    dev.write_text("sentence,label\nawful,1\ngreat,5\n", encoding="utf-8")
    dataset, labels = classification_dataset(str(train), preprocessor, shuffle=False)
    assert labels == label_vocabulary(["5", "1", "3", "5"]) == [1, 3, 5]
    train_ids = _collect(dataset)[1]
    assert train_ids.tolist() == [2, 0, 1, 2] and train_ids.max() < num_classes(labels, str(train))
    dev_ids = _collect(classification_dataset(str(dev), preprocessor, labels=labels, shuffle=False)[0])[1]
    assert dev_ids.tolist() == [0, 2]  # the same classes as in training
    assert label_vocabulary([2, 1, 2]) == [1, 2] and label_vocabulary(["b", "a"]) == ["a", "b"]
    with pytest.raises(ValueError, match="float labels"):
        num_classes(label_vocabulary(["0.5", "1.5"]), "sts.tsv")


def test_float_labels_are_regression_targets(preprocessor, tmp_path):
    path = tmp_path / "sts.tsv"
    path.write_text("sentence1\tsentence2\tscore\nA man is cooking.\tA man cooks.\t4.8\n"
                    "A cat sleeps.\tThe stock market fell.\t0.2\n", encoding="utf-8")
    dataset, labels = classification_dataset(str(path), preprocessor, text_a="sentence1",
                                             text_b="sentence2", label="score", shuffle=False)
    _, scores = _collect(dataset)
    assert labels is None
    assert scores.dtype == np.float32
    np.testing.assert_allclose(scores, [4.8, 0.2], rtol=1e-6)


def test_dataset_trains_a_model(preprocessor):
    dataset, labels = classification_dataset(os.path.join(FIXTURES, "sentiment.csv"), preprocessor,
                                             batch_size=4)
    inputs = {name: keras.Input([SEQ_LENGTH], dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    hidden = keras.layers.Embedding(preprocessor.tokenizer.vocab_size, 8)(inputs["input_word_ids"])
    logits = keras.layers.Dense(len(labels))(keras.layers.GlobalAveragePooling1D()(hidden))
    model = keras.Model(inputs, logits)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(dataset, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


def test_missing_column_names_it_and_the_available_ones(preprocessor):
    with pytest.raises(ValueError) as error:
        classification_dataset(os.path.join(FIXTURES, "paraphrase.tsv"), preprocessor)
    message = str(error.value)
    assert "'sentence'" in message and "text_a" in message
    assert "['label', 'sentence1', 'sentence2']" in message
    with pytest.raises(ValueError, match="'hypo'.*'premise', 'hypothesis', 'label'"):
        classification_dataset(os.path.join(FIXTURES, "nli.jsonl"), preprocessor, text_a="premise",
                               text_b="hypo")


@pytest.mark.parametrize("content", ["", "sentence,label\n"])
def test_empty_file(preprocessor, tmp_path, content):
    path = tmp_path / "empty.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match="has no examples"):
        classification_dataset(str(path), preprocessor)


def test_unknown_label(preprocessor):
    with pytest.raises(ValueError, match=r"Row 2 .*label 'negative'.*not in labels=\['positive', 'neutral'\]"):
        classification_dataset(os.path.join(FIXTURES, "sentiment.csv"), preprocessor,
                               labels=["positive", "neutral"])


def test_bad_files(preprocessor, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        classification_dataset(str(tmp_path / "missing.csv"), preprocessor)
    odd = tmp_path / "data.txt"
    odd.write_text("sentence,label\nok,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="Pass format="):
        classification_dataset(str(odd), preprocessor)
    _, labels = classification_dataset(str(odd), preprocessor, format="csv")
    assert labels == [1]
    broken = tmp_path / "data.jsonl"
    broken.write_text('{"sentence": "fine", "label": 1}\n{"sentence": "oops"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="Line 2 .* not valid JSON"):
        classification_dataset(str(broken), preprocessor)
    ragged = tmp_path / "short.csv"
    ragged.write_text("sentence,label\nfine,1\nno label here\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"Row 2 .*\['label'\]"):
        classification_dataset(str(ragged), preprocessor)
