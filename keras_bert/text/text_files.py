"""Text input files: `resolve_files` expands paths and glob patterns, `check_text_file` refuses
compressed and binary files before they are read as text. Imports no TensorFlow."""

import glob
import os

# Leading bytes of the archive and compression formats people hand over as corpora.
_COMPRESSED = {b"\x1f\x8b": ("gzip", "gunzip"), b"BZh": ("bzip2", "bunzip2"),
               b"\xfd7zXZ\x00": ("xz", "unxz"), b"PK\x03\x04": ("zip", "unzip"),
               b"(\xb5/\xfd": ("zstd", "unzstd")}


def check_text_file(path, sample_bytes=8192):
    """Raises ValueError if `path` is compressed or binary rather than UTF-8 text.

    Reads the first `sample_bytes`: a compression format's magic bytes, a NUL byte, or
    more than 1 % of bytes that are not UTF-8 mean the file is not text. (Plain text may
    hold a few stray bytes; these become U+FFFD and are dropped by the tokenizer.)

    Example:
        >>> check_text_file("corpus.txt.gz")
        Traceback (most recent call last):
        ValueError: corpus.txt.gz is gzip-compressed; ...
    """
    with open(path, "rb") as f:
        head = f.read(sample_bytes)
    for magic, (kind, command) in _COMPRESSED.items():
        if head.startswith(magic):
            raise ValueError(f"{path} is {kind}-compressed; keras_bert reads plain UTF-8 text. "
                             f"Decompress it first ({command} {path}) and pass the text file.")
    nul = head.find(b"\x00")
    bad = len(head) - len(head.decode("utf-8", "ignore").encode("utf-8"))
    if nul >= 0 or bad > 0.01 * len(head) + 4:
        where = f"a NUL byte at offset {nul}" if nul >= 0 else f"{bad} bytes that are not UTF-8"
        raise ValueError(f"{path} is not UTF-8 text ({where} in its first {len(head)} bytes); "
                         "pass text files (one sentence or paragraph per line).")


def resolve_files(files):
    """Expands `files` (a path, a glob pattern or a list of them) to a list of existing text files.

    The one expansion of file lists: the pretraining pipeline, `build_vocab` and the tools'
    file-list flags (`keras_bert.cli.resolve_file_flag`) all use it, so a quoted pattern such
    as `'corpus/*.txt'` works everywhere a shell would have expanded it.

    Args:
        files: str / os.PathLike or a list of them; patterns like `"corpus/*.txt"` are expanded.

    Returns:
        The list of paths in the given order, each pattern's matches sorted, each file once
        (the first time it is named).

    Raises:
        ValueError: nothing was given, a pattern matched nothing, a path is a directory or a
            file is compressed or binary (`check_text_file`).

    Example:
        >>> resolve_files("corpus/*.txt")
        ['corpus/a.txt', 'corpus/b.txt']
    """
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    paths = {}  # an ordered set
    for entry in files:
        entry = os.fspath(entry)
        matches = [entry] if os.path.isfile(entry) else sorted(glob.glob(entry))
        if not matches:
            raise ValueError(
                f"Input file {entry!r} does not exist, nor does any file match it as a glob "
                "pattern; pass existing text files or a pattern such as 'corpus/*.txt'.")
        directories = [m for m in matches if os.path.isdir(m)]
        if directories:
            raise ValueError(
                f"{directories[0]!r} is a directory; pass the text files in it, e.g. "
                f"{os.path.join(directories[0], '*.txt')!r}.")
        paths.update(dict.fromkeys(matches))
    if not paths:
        raise ValueError("No input files were given; pass a list of text files or a glob pattern.")
    for path in paths:
        check_text_file(path)
    return list(paths)
