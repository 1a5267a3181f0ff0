"""The corpus checks made before any pipeline is built, in plain Python (no TensorFlow: tools/pretrain.py
refuses an empty or single-document corpus before TensorFlow loads): the input format guessed from how
lines end, documents counted, a next-sentence pair looked for. `keras_bert.data.documents` splits the
same blocks with TensorFlow ops (`_BLOCK_BREAK`)."""

import re

_BLOCK_BREAK = r"\n[ \t\f\v]*(?:\n[ \t\f\v]*)+"  # one or more blank lines after a line end
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


def check_corpus(paths, input_format, next_sentence, pipeline_id=None):
    """Refuses, in one line, a corpus that cannot make the examples asked for: no text, a single document or
    only one-sentence documents with next-sentence pairs. The one check of `pretraining_dataset` (each input
    pipeline's files) and of tools/pretrain.py before TensorFlow loads.

    Args:
        paths: the text files (resolved).
        input_format: "bert", "plain" or "auto" (`detect_input_format`).
        next_sentence: whether next-sentence pairs are made.
        pipeline_id: the input pipeline whose files these are (None: all of them).

    Returns:
        the input format (`detect_input_format`'s for "auto").

    Example:
        >>> check_corpus(["corpus.txt"], "auto", next_sentence=True)  # doctest: +SKIP
        'bert'
    """
    if input_format == "auto":
        input_format = detect_input_format(paths)
    where = (f"Input pipeline {pipeline_id}'s files" if pipeline_id is not None
             else "The input files") + f" ({len(paths)}, input_format={input_format!r})"
    num_documents = count_documents(paths, input_format, limit=2)
    if num_documents == 0:
        raise ValueError(f"{where} hold no text (empty or whitespace only); pass text files.")
    if next_sentence and num_documents < 2:
        raise ValueError(
            f"{where} hold a single document, but next-sentence prediction draws its random B "
            "segments from other documents. Pass more documents (more files; or, with "
            "input_format='bert', blank lines between documents) or next_sentence=False.")
    if next_sentence and not has_sentence_pair(paths, input_format):
        raise ValueError(
            f"{where} hold only one-sentence documents, so no next-sentence pair can be built "
            "(an instance's A needs a following sentence of its document). Put a document's "
            "sentences on consecutive lines (input_format='bert') or in several paragraphs "
            "(input_format='plain'), or pass next_sentence=False.")
    return input_format
