"""Sentence (pair) classification reader: CSV / TSV / JSONL -> tf.data of `(features, labels)`.

The file is parsed in Python (fine-tuning sets such as GLUE fit in memory, and
parsing up front lets bad input fail with a clear message before training);
tokenization and packing run in the graph, inside `dataset.map`, with the
project's `Preprocessor`.
"""

import contextlib

import numpy as np
import tensorflow as tf

from keras_bert.data.table_rows import read_table_rows
from keras_bert.text.label_names import label_name, label_vocabulary_names
from keras_bert.text.no_autograph import no_autograph
from keras_bert.text.packer import trim_padding

def classification_dataset(path, preprocessor, text_a="sentence", text_b=None, label="label",
                           labels=None, batch_size=32, shuffle=True, seed=0, format="auto",
                           drop_remainder=False, dynamic_padding=False, length_group_batches=8,
                           doc_stride=None):
    """Reads a classification file into a batched tf.data pipeline for `model.fit`.

    Args:
        path: a `.csv` or `.tsv` file with a header row, or a `.jsonl` file (one object a line).
        preprocessor: a `keras_bert.Preprocessor`; called on each batch of strings in the graph.
        text_a: column holding the first (or only) text.
        text_b: column holding the second text of a pair, or None.
        label: column holding the label.
        labels: the label vocabulary; label `labels[i]` becomes id `i`. If None: the file's
            `label_vocabulary` (distinct labels, sorted; integers as numbers), or float32
            targets when all labels are floats (regression). Pass the training set's
            vocabulary when reading its evaluation set.
        batch_size: examples per batch.
        shuffle: shuffle the examples (a full shuffle, reshuffled every epoch).
        seed: shuffle seed.
        format: "csv", "tsv", "jsonl" or "auto" (from the file extension).
        drop_remainder: drop the last partial batch (fixed batch shapes, e.g. for TPUs).
        dynamic_padding: cut each batch's padding to its longest example (at most the
            preprocessor's `seq_length`), as Hugging Face's `DataCollatorWithPadding` does;
            with `shuffle`, also batch examples of similar length together: each run of
            `length_group_batches` batches of shuffled examples is sorted by length, cut
            into batches, and the batches are shuffled (Hugging Face's `group_by_length`
            does the same with 50). Every epoch still holds each example once, and each
            example's features are its fully padded features minus trailing padding, so
            a padding-invariant model (BERT) predicts the same for it.
        length_group_batches: batches per length-sorted group (with `dynamic_padding`).
        doc_stride: None (texts longer than `seq_length` are truncated), or windows of
            single texts `doc_stride` pieces apart, each with its text's label (see `text_dataset`).

    Returns:
        `(dataset, labels)`: the dataset yields `(features, label_ids)` with features the
        encoder input dict (int32 `[batch, seq_length]`, `[batch, None]` with
        `dynamic_padding`) and label ids int32 `[batch]`
        (float32 for regression); `labels` is the label vocabulary used (None for
        regression).

    Example:
        >>> ds, labels = classification_dataset("train.csv", preprocessor, labels=["neg", "pos"])
        >>> model.fit(ds, epochs=3)
    """
    lines = []
    texts_a, texts_b, raw_labels = read_text_rows(path, text_a, text_b, label, format, lines)
    label_ids, labels = _label_ids(path, raw_labels, labels, lines, label)
    dataset = text_dataset(preprocessor, texts_a, texts_b, label_ids, batch_size, shuffle, seed,
                           drop_remainder, dynamic_padding, length_group_batches, doc_stride)
    return dataset, labels


def read_text_rows(path, text_a, text_b, label, format="auto", lines=None):  # pylint: disable=redefined-builtin
    """`(texts_a, texts_b or None, raw label values)` of a CSV / TSV / JSONL file, its columns
    checked (one-line errors naming the file, column and row). Every text task reads with it.
    `label=None`: a file without a label column (the values are None). `lines` (a list) gets each
    row's line number in the file, for messages about a row's values.

    Example:
        >>> texts, _, scores = read_text_rows("train.csv", "sentence", None, "score")
    """
    lines = [] if lines is None else lines
    rows = read_table_rows(path, format, lines)
    available = list(rows[0].keys())
    for argument, column in (("text_a", text_a), ("text_b", text_b), ("label", label)):
        if column is not None and column not in available:
            raise ValueError(f"Column {column!r} (--{argument} / {argument}=) not found in {path!r}; "
                             f"available columns: {available}. Pass --{argument} one of them.")
    columns = [c for c in (text_a, text_b, label) if c is not None]
    for row_number, (row, line) in enumerate(zip(rows, lines), start=1):
        missing = [c for c in columns if row.get(c) is None]
        if missing:
            raise ValueError(f"Row {row_number} (line {line}) of {path!r} has no value for column(s) {missing}; "
                             "every row needs the text and label columns.")
    texts_a = [_text(row[text_a], path, line, text_a, "text_a") for row, line in zip(rows, lines)]
    texts_b = ([_text(row[text_b], path, line, text_b, "text_b") for row, line in zip(rows, lines)]
               if text_b is not None else None)
    return texts_a, texts_b, [row[label] for row in rows] if label is not None else None


def text_dataset(preprocessor, texts_a, texts_b, targets, batch_size=32, shuffle=True, seed=0,
                 drop_remainder=False, dynamic_padding=False, length_group_batches=8, doc_stride=None):
    """tf.data of `(features, targets)` for texts (or pairs) and their targets (any array whose
    first axis is the example): tokenized and packed in the graph, batched, shuffled when
    `shuffle`; `dynamic_padding` and `length_group_batches` as in `classification_dataset`.
    `doc_stride` (single texts): a long text becomes windows `doc_stride` pieces apart, one
    element each, with the text's target (`keras_bert.data.text_windows.window_dataset`).

    Example:
        >>> dataset = text_dataset(Preprocessor(tokenizer, 128), texts, None, np.float32(scores))
    """
    check_text_room(preprocessor.seq_length, texts_b is not None)
    if doc_stride is not None:
        from keras_bert.data.text_windows import window_dataset

        return window_dataset(preprocessor, texts_a, targets, doc_stride, batch_size, shuffle, seed,
                              drop_remainder, dynamic_padding)
    inputs = (texts_a, targets) if texts_b is None else ((texts_a, texts_b), targets)
    dataset = tf.data.Dataset.from_tensor_slices(inputs)
    if shuffle:
        dataset = dataset.shuffle(len(texts_a), seed=seed, reshuffle_each_iteration=True)

    @no_autograph
    def preprocess(texts, y):
        features = preprocessor(texts) if texts_b is None else preprocessor(texts[0], texts[1])
        return features, y

    if dynamic_padding and shuffle:
        dataset = _length_grouped(dataset, preprocess, len(texts_a), batch_size,
                                  int(length_group_batches), seed, drop_remainder)
    else:
        dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
        dataset = dataset.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)
    if dynamic_padding:
        dataset = dataset.map(no_autograph(lambda features, y: (trim_padding(features), y)),
                              num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.prefetch(tf.data.AUTOTUNE)


def check_text_room(seq_length, pairs=False):
    """Refuses a `seq_length` that leaves a text no piece: [CLS] and [SEP] take 2 (a pair's 3, and each
    of its texts needs one), so the model would train on no text at all."""
    if seq_length < (5 if pairs else 3):
        raise ValueError(f"seq_length={seq_length} (--seq_length) leaves no room for text ([CLS] and [SEP] take 2 "
                         f"positions, a pair's 3); use --seq_length >= {5 if pairs else 3}, e.g. 128.")


def _length_grouped(dataset, preprocess, size, batch_size, group_batches, seed, drop_remainder):
    """Batches of similar-length examples from a dataset of shuffled `(texts, label)` examples."""
    if group_batches < 1:
        raise ValueError(f"length_group_batches must be >= 1, got {group_batches}.")

    @no_autograph
    def sort_by_length(features, y):
        order = tf.argsort(tf.reduce_sum(features["input_mask"], axis=1), stable=True)
        return {k: tf.gather(v, order) for k, v in features.items()}, tf.gather(y, order)

    dataset = dataset.batch(batch_size * group_batches).map(preprocess).map(sort_by_length)
    dataset = dataset.unbatch().batch(batch_size, drop_remainder=drop_remainder)
    dataset = dataset.shuffle(group_batches, seed=seed + 1, reshuffle_each_iteration=True)
    batches = size // batch_size if drop_remainder else -(-size // batch_size)
    return dataset.apply(tf.data.experimental.assert_cardinality(batches))


def _text(value, path, line, column, argument):
    if not isinstance(value, str):
        raise ValueError(f"Line {line} of {path!r}: column {column!r} (--{argument}) holds "
                         f"{type(value).__name__} {value!r}; expected text (quote it in the file).")
    return value


def label_vocabulary(values):
    """The one label vocabulary of a classification set: its distinct labels, sorted.

    Integer labels sort as numbers (`{1, 2}` -> `[1, 2]`, 1-5 stars -> `[1, 2, 3, 4, 5]`), other
    labels as strings; label `vocabulary[i]` is class `i` in training and evaluation alike, so
    the head has `len(vocabulary)` outputs and every target falls inside it. Float labels mean
    regression: None.

    Args:
        values: the raw label values (str, int, float or bool, as read from the file).

    Example:
        >>> label_vocabulary(["5", "1", "3", "1"])
        [1, 3, 5]
    """
    keys = [_label_key(v) for v in values]
    numbers = [_number(k) for k in keys]
    if all(isinstance(n, int) for n in numbers):
        return sorted(set(numbers))
    if all(n is not None for n in numbers):
        return None
    return sorted(set(keys))


def num_classes(labels, path):
    """The head size for a label vocabulary from `classification_dataset`; None (regression) is refused."""
    if not labels:
        raise ValueError(f"{path!r} has float labels (a regression target); classification needs "
                         "class labels, e.g. pass labels=[...] or round the scores to classes.")
    return len(labels)


def file_label_vocabulary(path, values, lines, column):
    """A file's label vocabulary (`label_vocabulary`; None for float targets), each value one label by `label_name`."""
    for line, value in zip(lines, values):
        if isinstance(value, (list, dict)) or value is None:
            raise ValueError(f"Line {line} of {path!r}: label column {column!r} holds {value!r}; a classification "
                             "example has one label (a set of labels is task multi_label).")
        label_name(value, f"Line {line} of {path!r} ({column})")
    return label_vocabulary(values)


def _label_ids(path, values, labels, lines, column):
    """Maps raw label values to class ids through the label vocabulary; returns `(ids, vocabulary)`."""
    if labels is not None:
        label_vocabulary_names(labels, "labels= (--labels)")
    else:
        labels = file_label_vocabulary(path, values, lines, column)
        if labels is None:  # regression targets
            return np.asarray([_number(_label_key(v)) for v in values], np.float32), None
    labels = list(labels)
    index = {_label_key(name): i for i, name in enumerate(labels)}
    ids = []
    for row_number, value in enumerate(values, start=1):
        key = _label_key(value)
        if key not in index:
            raise ValueError(f"Row {row_number} of {path!r} has label {value!r}, which is not in "
                             f"labels={labels} (--labels). Add it there or fix the file.")
        ids.append(index[key])
    return np.asarray(ids, np.int32), labels


def _label_key(value):
    """The string a label value is matched by (JSON `1`, `true` and CSV "1" alike)."""
    if isinstance(value, bool) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    return str(value).strip()


def _number(key):
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(key)
    return None
