"""Token classification (NER, POS) reader: CoNLL files -> tf.data of `(features, labels, weights)`.

Each word is split into word pieces in the graph; the word's label goes on its
first piece and every other position (later pieces, `[CLS]`, `[SEP]`, padding)
gets sample weight 0, so the loss and metrics see one prediction per word, as
in the BERT paper's CoNLL-2003 setup.
"""

import itertools
import os

import tensorflow as tf

from keras_bert.text.label_names import label_name, label_vocabulary_names
from keras_bert.text.no_autograph import no_autograph
from keras_bert.text.packer import pack_segments
from keras_bert.text.ragged_rows import join_rows


def read_conll(path):
    """Reads a CoNLL-style file: one token a line (word first, label last), blank line between sentences.

    `-DOCSTART-` lines are skipped.

    Args:
        path: the file.

    Returns:
        `(sentences, tags)`: lists (one entry per sentence) of lists of words and of label strings.

    Example:
        >>> words, tags = read_conll("eng.train")
        >>> words[0][:3], tags[0][:3]
        (['EU', 'rejects', 'German'], ['B-ORG', 'O', 'B-MISC'])
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"CoNLL file {path!r} does not exist.")
    sentences, tags, words, labels = [], [], [], []
    with open(path, encoding="utf-8-sig") as f:  # -sig: drop a leading BOM
        for line_number, line in enumerate(itertools.chain(f, [""]), start=1):  # "" ends the last sentence
            columns = line.split()
            if not columns or columns[0] == "-DOCSTART-":
                if words:
                    sentences.append(words)
                    tags.append(labels)
                words, labels = [], []
                continue
            if len(columns) < 2:
                raise ValueError(f"Line {line_number} of {path!r} has one column ({line.strip()!r}); "
                                 "expected the word first and its label in the last column.")
            words.append(columns[0])
            labels.append(label_name(columns[-1], f"Line {line_number} of {path!r}"))
    if not sentences:
        raise ValueError(f"{path!r} holds no sentences; expected lines of 'word ... label' with a "
                         "blank line between sentences.")
    return sentences, tags


def token_classification_dataset(path, tokenizer, seq_length=128, labels=None, batch_size=32,
                                 shuffle=True, seed=0, drop_remainder=False):
    """Reads a CoNLL file into a batched tf.data pipeline for `model.fit`.

    Args:
        path: a CoNLL-style file (see `read_conll`).
        tokenizer: a `keras_bert.Tokenizer`; each word is split into pieces in the graph.
        seq_length: packed length, `[CLS]` and `[SEP]` included; longer sentences are truncated.
        labels: the label vocabulary (`labels[i]` gets id `i`); default: the file's labels, sorted.
        batch_size: sentences per batch.
        shuffle: shuffle the sentences (full shuffle, reshuffled every epoch).
        seed: shuffle seed.
        drop_remainder: drop the last partial batch.

    Returns:
        `(dataset, labels)`: the dataset yields `(features, label_ids, sample_weights)` with
        features the encoder input dict (int32 `[batch, seq_length]`), label ids int32
        `[batch, seq_length]` (the word's label on its first piece, 0 elsewhere) and sample
        weights float32 `[batch, seq_length]` (1 on first pieces, 0 elsewhere).

    Example:
        >>> ds, labels = token_classification_dataset("eng.train", tokenizer, seq_length=128)
        >>> model.fit(ds, epochs=3)
    """
    sentences, tags = read_conll(path)
    if labels is None:
        labels = sorted({tag for sentence_tags in tags for tag in sentence_tags})
    labels = label_vocabulary_names(labels)
    index = {name: i for i, name in enumerate(labels)}
    tag_ids = []
    for sentence_number, sentence_tags in enumerate(tags, start=1):
        unknown = sorted(set(sentence_tags) - set(index))
        if unknown:
            raise ValueError(f"Sentence {sentence_number} of {path!r} has label(s) {unknown} that are "
                             f"not in labels={labels}. Add them to `labels` or fix the file.")
        tag_ids.append([index[tag] for tag in sentence_tags])

    words = tf.ragged.constant(sentences, dtype=tf.string)  # (sentences, (words))
    word_labels = tf.ragged.constant(tag_ids, dtype=tf.int32)  # (sentences, (words))
    dataset = tf.data.Dataset.from_tensor_slices((words, word_labels))
    if shuffle:
        dataset = dataset.shuffle(len(sentences), seed=seed, reshuffle_each_iteration=True)
    dataset = dataset.ragged_batch(batch_size, drop_remainder=drop_remainder)
    if seq_length < 3:
        raise ValueError(f"seq_length={seq_length} leaves no room for a word next to [CLS] and "
                         "[SEP]; use seq_length >= 3.")
    dataset = dataset.map(no_autograph(lambda w, y: _label_pieces(w, y, tokenizer, seq_length)),
                          num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.prefetch(tf.data.AUTOTUNE), labels


def _label_pieces(words, word_labels, tokenizer, seq_length):
    """Splits a batch of words into pieces; packs ids, first-piece labels and weights."""
    # One text per word, so the word -> pieces map survives the tokenizer's own splitting
    # of punctuation ("1996-08-22" is one CoNLL word but five basic tokens).
    pieces = tf.cast(tokenizer.tokenize(words.flat_values), tf.int32)  # (words, (pieces))
    # A word the tokenizer drops entirely (e.g. only control characters) becomes [UNK],
    # so that every word keeps its label.
    empty = tf.cast(tf.equal(pieces.row_lengths(), 0), tf.int64)
    unk = tf.RaggedTensor.from_row_lengths(
        tf.fill([tf.reduce_sum(empty)], tf.constant(tokenizer.unk_id, tf.int32)), empty)
    pieces = tf.concat([pieces, unk], axis=1)  # (words, (pieces))

    is_first = tf.cast(tf.equal(tf.ragged.range(pieces.row_lengths()), 0), tf.int32)  # (words, (pieces))
    piece_labels = tf.gather(word_labels.flat_values, pieces.value_rowids()) * is_first.flat_values

    def packed(values, cls_id, sep_id, pad_id):  # (pieces,) -> (batch, seq_length), the one packer
        texts = join_rows(words.row_splits, pieces.with_flat_values(values))  # (batch, (pieces))
        return pack_segments([texts], seq_length, cls_id, sep_id, pad_id)

    features = packed(pieces.flat_values, tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id)
    weights = tf.cast(packed(is_first.flat_values, 0, 0, 0)["input_word_ids"], tf.float32)
    return features, packed(piece_labels, 0, 0, 0)["input_word_ids"], weights
