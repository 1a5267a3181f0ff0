"""check_text_file: refuses compressed and binary files before they are read as text."""

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
