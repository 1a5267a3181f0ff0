"""TFRecord cache of tokenized documents: tokenize a corpus once, reuse it every epoch and run.

One cache file per source file, named by a hash of the file's path, size and modification
time, the input format and the tokenizer (vocabulary, casing, normalization), so a changed
file or tokenizer gets a new cache file. Each record is one document: `tokens` (int32
`[pieces]`, little-endian bytes), `sentence_lengths` (int32 `[sentences]`, same) and
`document_id`.
"""

import hashlib
import os

import numpy as np
import tensorflow as tf

from keras_bert.data.documents import tokenize_documents
from keras_bert.text.no_autograph import no_autograph

_FEATURES = {
    "tokens": tf.io.FixedLenFeature([], tf.string),
    "sentence_lengths": tf.io.FixedLenFeature([], tf.string),
    "document_id": tf.io.FixedLenFeature([], tf.int64),
}


def document_id(file_index, index_in_file):
    """int64 id of a document: the file's index in the corpus (high bits) and its index in the file."""
    return tf.cast(file_index, tf.int64) * (1 << 32) + tf.cast(index_in_file, tf.int64)


def cache_paths(files, tokenizer, input_format, cache_dir):
    """The cache file (`<cache_dir>/<hash>.tfrecord`) for each source file."""
    fingerprint = hashlib.sha1()
    fingerprint.update("\n".join(tokenizer.vocab).encode("utf-8"))
    fingerprint.update(repr((getattr(tokenizer, "lower_case", None),
                             getattr(tokenizer, "normalization", None),
                             getattr(tokenizer, "max_chars_per_word", None),
                             input_format)).encode("utf-8"))
    paths = []
    for path in files:
        stat = os.stat(path)
        key = fingerprint.copy()
        key.update(repr((os.path.abspath(path), stat.st_size, stat.st_mtime_ns)).encode("utf-8"))
        paths.append(os.path.join(cache_dir, key.hexdigest()[:24] + ".tfrecord"))
    return paths


def build_cache(files, file_indices, cache_files, tokenizer, input_format):
    """Tokenizes every source file whose cache file is missing and writes it (atomically).

    Args:
        files: source paths.
        file_indices: each file's index in the whole corpus (for document ids).
        cache_files: the matching `cache_paths`.
        tokenizer: a `keras_bert.text.Tokenizer`.
        input_format: `"bert"` or `"plain"`.
    """
    todo = [(f, i, c) for f, i, c in zip(files, file_indices, cache_files) if not os.path.exists(c)]
    if not todo:
        return
    os.makedirs(os.path.dirname(todo[0][2]) or ".", exist_ok=True)
    sources = tf.data.Dataset.from_tensor_slices([f for f, _, _ in todo])
    tokenized = sources.map(
        no_autograph(lambda path: tokenize_documents(tf.io.read_file(path), tokenizer, input_format)),
        num_parallel_calls=tf.data.AUTOTUNE)
    for (_, file_index, cache_file), documents in zip(todo, tokenized):
        temporary = f"{cache_file}.tmp-{os.getpid()}"
        tokens = documents.flat_values.numpy().astype("<i4")
        sentence_splits, piece_splits = (s.numpy() for s in documents.nested_row_splits)
        sentence_lengths = np.diff(piece_splits).astype("<i4")
        with tf.io.TFRecordWriter(temporary) as writer:
            for index in range(len(sentence_splits) - 1):
                first, last = sentence_splits[index], sentence_splits[index + 1]
                example = tf.train.Example(features=tf.train.Features(feature={
                    "tokens": _bytes(tokens[piece_splits[first]:piece_splits[last]].tobytes()),
                    "sentence_lengths": _bytes(sentence_lengths[first:last].tobytes()),
                    "document_id": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[file_index * (1 << 32) + index])),
                }))
                writer.write(example.SerializeToString())
        os.replace(temporary, cache_file)  # readers never see a half-written file


def read_cached_documents(cache_file):
    """A dataset of `(pieces [sentences, (pieces)], document_id)` from one cache file."""
    def parse(record):
        example = tf.io.parse_single_example(record, _FEATURES)
        tokens = tf.io.decode_raw(example["tokens"], tf.int32, little_endian=True)
        lengths = tf.io.decode_raw(example["sentence_lengths"], tf.int32, little_endian=True)
        return tf.RaggedTensor.from_row_lengths(tokens, tf.cast(lengths, tf.int64)), \
            example["document_id"]
    return tf.data.TFRecordDataset(cache_file).map(no_autograph(parse))


def _bytes(data):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[data]))
