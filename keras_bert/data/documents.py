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

import re

import tensorflow as tf

from keras_bert.choices import INPUT_FORMATS  # noqa: F401  (re-exported)
from keras_bert.text.text_files import check_text_file, resolve_files  # noqa: F401  (re-exported)


_BLOCK_BREAK = r"\n[ \t\f\v]*(?:\n[ \t\f\v]*)+"  # one or more blank lines after a line end
_SEPARATOR = "\x1e"  # ASCII record separator: a control character the tokenizer drops anyway
_TEXT = re.compile("[^\\s\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u2060\\ufeff\\ufffd]")
_SENTENCE_END = re.compile(r"""[.!?"'\u201d\u2019)\]]\s*$""")


def detect_input_format(files, sample_bytes=65536, max_files=8):
    """Guesses `"bert"` or `"plain"` from the start of the first files.

    In Google's format nearly every line is a whole sentence and so ends like one; in
    wrapped prose or verse most lines do not (37 % do in the Shakespeare corpus). The
    corpus is `"bert"` if at least 70 % of the sampled non-empty lines end with `. ! ? " ' )`.

    Args:
        files: list of paths.
        sample_bytes: bytes read from the start of each file.
        max_files: number of files sampled.

    Example:
        >>> detect_input_format(keras_bert.data.corpus.shakespeare_files())
        'plain'
    """
    lines = []
    for path in files[:max_files]:
        with open(path, "rb") as f:
            head = f.read(sample_bytes).decode("utf-8", "replace")
        lines.extend(line for line in head.splitlines()[:-1] if line.strip())
    if not lines:
        return "plain"
    ends = sum(bool(_SENTENCE_END.search(line)) for line in lines)
    return "bert" if ends >= 0.7 * len(lines) else "plain"


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


def count_documents(files, input_format, limit=2, chunk_bytes=1 << 20):
    """Python helper: counts documents with some text in `files`, stopping at `limit`.

    Used before building a pipeline to refuse an empty corpus, or one of one document with
    next-sentence prediction (which draws random sentences from a second document). "Text"
    is anything but whitespace and control/format characters. Reads the first `chunk_bytes`
    of each file and the rest only if that did not reach `limit`.
    """
    count = 0
    for path in files:
        with open(path, "rb") as f:
            head = f.read(chunk_bytes)
            found = _count_blocks(head, input_format)
            if count + found < limit and len(head) == chunk_bytes:
                found = _count_blocks(head + f.read(), input_format)
        count += found
        if count >= limit:
            break
    return count


def has_sentence_pair(files, input_format, chunk_bytes=1 << 20):
    """Python helper: True if some document in `files` has at least two sentences with text.

    Next-sentence prediction starts instances only where a next sentence exists, so a corpus
    of one-sentence documents gives none. Reads the first `chunk_bytes` of each file (all of
    it only if no pair turned up there), stopping at the first pair found.
    """
    for path in files:
        with open(path, "rb") as f:
            head = f.read(chunk_bytes)
            if _has_pair(head, input_format) or (
                    len(head) == chunk_bytes and _has_pair(head + f.read(), input_format)):
                return True
    return False


def _has_pair(data, input_format):
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    blocks = [b for b in re.split(_BLOCK_BREAK, text) if _TEXT.search(b)]
    if input_format == "plain":
        return len(blocks) >= 2
    return any(sum(bool(_TEXT.search(line)) for line in b.split("\n")) >= 2 for b in blocks)


def _count_blocks(data, input_format):
    text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    blocks = [b for b in re.split(_BLOCK_BREAK, text) if _TEXT.search(b)]
    return min(len(blocks), 1) if input_format == "plain" else len(blocks)
