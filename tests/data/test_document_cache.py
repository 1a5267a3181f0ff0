"""The tokenized-document cache: one file per source, keyed by file and tokenizer, read back exactly."""

import os

import numpy as np
import tensorflow as tf

from keras_bert.data.document_cache import build_cache, cache_paths, document_id, read_cached_documents
from keras_bert.data.documents import tokenize_documents

TEXT = "The first document.\nIt has two sentences.\n\nThe second one.\n"


def test_build_then_read_gives_the_tokenized_documents(tokenizer, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text(TEXT, encoding="utf-8")
    cache = cache_paths([str(source)], tokenizer, "bert", str(tmp_path / "cache"))
    assert len(cache) == 1 and cache[0].endswith(".tfrecord") and not os.path.exists(cache[0])
    build_cache([str(source)], [3], cache, tokenizer, "bert")
    read = list(read_cached_documents(cache[0]))
    expected = tokenize_documents(tf.io.read_file(str(source)), tokenizer, "bert")
    assert len(read) == 2
    for index, (pieces, doc_id) in enumerate(read):
        assert pieces.to_list() == expected[index].to_list()
        assert int(doc_id) == int(document_id(3, index)) == 3 * 2 ** 32 + index
    stamp = os.stat(cache[0]).st_mtime_ns
    build_cache([str(source)], [3], cache, tokenizer, "bert")  # present: not rewritten
    assert os.stat(cache[0]).st_mtime_ns == stamp


def test_cache_name_changes_with_the_file_and_the_format(tokenizer, tmp_path):
    source = tmp_path / "corpus.txt"
    source.write_text(TEXT, encoding="utf-8")
    before = cache_paths([str(source)], tokenizer, "bert", "c")[0]
    assert cache_paths([str(source)], tokenizer, "bert", "c")[0] == before
    assert cache_paths([str(source)], tokenizer, "plain", "c")[0] != before
    source.write_text(TEXT + "More.\n", encoding="utf-8")
    assert cache_paths([str(source)], tokenizer, "bert", "c")[0] != before
    assert np.all([p.startswith("c" + os.sep) for p in cache_paths([str(source)] * 2, tokenizer, "bert", "c")])
