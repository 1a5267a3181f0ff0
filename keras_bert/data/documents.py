"""Reading pretraining corpora: files -> documents -> sentences, as TensorFlow ops.

Two input formats:

* `"bert"` (Google's `create_pretraining_data.py`): one sentence per line, a blank line
  between documents; a file holds many documents.
* `"plain"`: ordinary text; a paragraph (lines up to a blank line) is one sentence and a file
  is one document.

Bytes that are not UTF-8 become U+FFFD (which the tokenizer drops); `\\r\\n` and `\\r` count as
line ends; lines holding only whitespace count as blank. Files are read whole, so split a
large corpus into files of at most a few hundred MB (Google's BERT data comes that way).
"""

import tensorflow as tf

from keras_bert.choices import INPUT_FORMATS  # noqa: F401  (re-exported)
from keras_bert.data.corpus_checks import (_BLOCK_BREAK, count_documents,  # noqa: F401  (re-exported)
                                          detect_input_format, has_sentence_pair)
from keras_bert.text.text_files import check_text_file, resolve_files  # noqa: F401  (re-exported)


_SEPARATOR = "\x1e"  # ASCII record separator: a control character the tokenizer drops anyway


def split_documents(text, input_format):
    """Splits one file's contents into documents of sentences (TensorFlow ops).

    Args:
        text: scalar `tf.string`, the file's bytes.
        input_format: `"bert"` or `"plain"` (see the module docstring).

    Returns:
        `tf.string` RaggedTensor `[documents, (sentences)]`, sentences stripped, no empty
        sentence and no empty document.

    Example:
        >>> split_documents(tf.constant("A b.\\nC d.\\n\\nE f.\\n"), "bert")
        <tf.RaggedTensor [[b'A b.', b'C d.'], [b'E f.']]>
    """
    if input_format not in ("bert", "plain"):
        raise ValueError(f"input_format must be 'bert' or 'plain' here, got {input_format!r}.")
    # Bytes that are not UTF-8 are left for the tokenizer, which replaces them (U+FFFD) and
    # drops them; only ASCII bytes matter for splitting, so RE2 and split see them unharmed.
    text = tf.strings.regex_replace(text, "\r\n?", "\n")
    text = tf.strings.regex_replace(text, _BLOCK_BREAK, _SEPARATOR)
    # The raw op: `tf.strings.split` builds a validated ragged row and indexes it (~55 ops).
    blocks = tf.raw_ops.StringSplitV2(input=tf.reshape(text, [1]), sep=_SEPARATOR).values  # [blocks]
    # Flat ops (1-D masks as gather + where) and unvalidated row lengths (right by
    # construction): a fraction of the graph ops of `tf.ragged.boolean_mask` / `tf.boolean_mask`,
    # which every pipeline traces and instantiates.
    if input_format == "plain":
        sentences = tf.strings.strip(blocks)
        sentences = tf.gather(sentences, tf.where(tf.strings.length(sentences) > 0)[:, 0])
        return tf.RaggedTensor.from_row_lengths(sentences, tf.size(sentences, tf.int64)[None],
                                                validate=False)
    lines = tf.strings.split(blocks, "\n")  # [blocks, (lines)]
    sentences = tf.strings.strip(lines.flat_values)
    keep = tf.strings.length(sentences) > 0
    return _drop_empty(tf.gather(sentences, tf.where(keep)[:, 0]), lines.value_rowids(),
                       lines.nrows(), keep)


def tokenize_documents(text, tokenizer, input_format):
    """One file's contents -> WordPiece ids `[documents, (sentences), (pieces)]` (TensorFlow ops).

    The whole file is tokenized in one call. Sentences that tokenize to nothing (e.g. only
    control characters) and then empty documents are dropped.

    Args:
        text: scalar `tf.string`, the file's bytes.
        tokenizer: a `keras_bert.text.Tokenizer`.
        input_format: `"bert"` or `"plain"`.

    Returns:
        int32 RaggedTensor `[documents, (sentences), (pieces)]`.
    """
    documents = split_documents(text, input_format)  # [d, (s)]
    pieces = tokenizer.tokenize(documents.values)  # [sentences, (p)]
    lengths = pieces.row_lengths()
    keep = lengths > 0
    sentences = tf.RaggedTensor.from_row_lengths(  # [kept sentences, (p)]
        pieces.flat_values, tf.gather(lengths, tf.where(keep)[:, 0]), validate=False)
    return _drop_empty(sentences, documents.value_rowids(), documents.nrows(), keep)


def _drop_empty(values, rowids, nrows, keep):
    """`values` (the kept rows' items, in order) as `[rows with a kept item, (items)]`."""
    counts = tf.math.unsorted_segment_sum(tf.cast(keep, tf.int64), rowids, nrows)  # [rows]
    return tf.RaggedTensor.from_row_lengths(
        values, tf.gather(counts, tf.where(counts > 0)[:, 0]), validate=False)
