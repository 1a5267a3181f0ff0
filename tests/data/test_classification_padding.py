"""classification_dataset(dynamic_padding=True): the same examples as full padding, the same predictions."""

import csv
import os

import numpy as np
import pytest

from keras_bert.data.classification import classification_dataset
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.tokenizer import Tokenizer

SEQ_LENGTH = 24
WORDS = "to be or not that is the question whether tis nobler in the mind to suffer".split()


@pytest.fixture(scope="module")
def preprocessor(minilm_dir):
    return Preprocessor(Tokenizer(os.path.join(minilm_dir, "vocab.txt")), seq_length=SEQ_LENGTH)


@pytest.fixture(scope="module")
def texts_file(tmp_path_factory):
    """45 texts of 1 to 30 words (some longer than SEQ_LENGTH), labels a/b/c."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("padding") / "train.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["sentence", "label"])
        for i in range(45):
            writer.writerow([" ".join(rng.choice(WORDS, rng.integers(1, 31))), "abc"[i % 3]])
    return str(path)


def _rows(dataset, epochs=2):
    """Per epoch: the sorted (label, full-length features) rows, and the batches as read."""
    batches = list(dataset.repeat(epochs))
    per_epoch = len(batches) // epochs
    epochs_rows = []
    for epoch in range(epochs):
        rows = []
        for features, labels in batches[epoch * per_epoch:(epoch + 1) * per_epoch]:
            padded = [np.pad(features[k].numpy(), [(0, 0), (0, SEQ_LENGTH - features[k].shape[1])])
                      for k in ("input_word_ids", "input_mask", "input_type_ids")]
            rows += [tuple([int(y)] + [tuple(p[i]) for p in padded]) for i, y in enumerate(labels.numpy())]
        epochs_rows.append(sorted(rows))
    return epochs_rows, batches


def test_dynamic_padding_yields_the_same_examples_each_epoch(preprocessor, texts_file):
    options = dict(batch_size=4, seed=3)
    full, _ = classification_dataset(texts_file, preprocessor, **options)
    dynamic, _ = classification_dataset(texts_file, preprocessor, dynamic_padding=True,
                                        length_group_batches=3, **options)
    assert int(dynamic.cardinality()) == int(full.cardinality()) == 12
    full_rows, _ = _rows(full)
    dynamic_rows, batches = _rows(dynamic)
    assert dynamic_rows == full_rows
    lengths = [features["input_mask"].numpy().sum(1) for features, _ in batches]
    assert all(features["input_word_ids"].shape[1] == length.max()
               for (features, _), length in zip(batches, lengths))  # no padding column left
    assert min(length.max() for length in lengths) < SEQ_LENGTH  # some batch is shorter
    first, second = ([b[0]["input_word_ids"].shape[1] for b in batches[i * 12:(i + 1) * 12]]
                     for i in range(2))
    assert first != second  # reshuffled every epoch
    # A resumed run (a new process) reads a new dataset's repeat().skip(step): the same batches.
    resumed, _ = classification_dataset(texts_file, preprocessor, dynamic_padding=True,
                                        length_group_batches=3, **options)
    for (a, y_a), (b, y_b) in zip(resumed.repeat(2).skip(17), batches[17:]):
        np.testing.assert_array_equal(a["input_word_ids"], b["input_word_ids"])
        np.testing.assert_array_equal(y_a, y_b)


def test_evaluation_order_is_kept(preprocessor, texts_file):
    full, _ = classification_dataset(texts_file, preprocessor, batch_size=8, shuffle=False)
    dynamic, _ = classification_dataset(texts_file, preprocessor, batch_size=8, shuffle=False,
                                        dynamic_padding=True)
    for (a, y_a), (b, y_b) in zip(full, dynamic):
        np.testing.assert_array_equal(y_a, y_b)
        length = b["input_word_ids"].shape[1]
        for name in a:
            np.testing.assert_array_equal(a[name][:, :length], b[name])
            assert not a[name][:, length:].numpy().any()


def test_predictions_match_full_padding(preprocessor, texts_file):
    import keras_bert

    config = keras_bert.BertConfig(vocab_size=30522, hidden_size=16, num_layers=1, num_heads=2,
                                   intermediate_size=32)
    model = keras_bert.build_classifier(keras_bert.build_encoder(config), 3)
    dynamic, _ = classification_dataset(texts_file, preprocessor, batch_size=8, seed=1,
                                        dynamic_padding=True, length_group_batches=2)
    for features, _ in dynamic:
        pad = SEQ_LENGTH - features["input_word_ids"].shape[1]
        padded = {k: np.pad(v.numpy(), [(0, 0), (0, pad)]) for k, v in features.items()}
        np.testing.assert_allclose(model(features, training=False), model(padded, training=False),
                                   atol=1e-5)
