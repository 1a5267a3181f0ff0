"""check_text_file: compressed and binary corpora are refused with what to do; text passes.
resolve_files: patterns expand in order, each file once."""

import bz2
import gzip

import pytest

from keras_bert.text.text_files import check_text_file, resolve_files


def test_plain_text_with_a_few_stray_bytes_passes(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes("Zürich’s café.\n".encode("utf-8") * 50 + b"\xff stray\n")
    check_text_file(path)


@pytest.mark.parametrize("compress, kind, command", [(gzip.compress, "gzip", "gunzip"),
                                                     (bz2.compress, "bzip2", "bunzip2")])
def test_compressed_file_names_the_format_and_the_command(tmp_path, compress, kind, command):
    path = tmp_path / "corpus.txt.z"
    path.write_bytes(compress(b"one sentence per line\n"))
    with pytest.raises(ValueError, match=f"corpus.txt.z is {kind}-compressed; .*Decompress it first \\({command} "):
        check_text_file(path)


def test_binary_file_names_the_first_nul_or_the_bad_byte_count(tmp_path):
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"abc\x00" + bytes(range(256)))
    with pytest.raises(ValueError, match=r"weights.bin is not UTF-8 text \(a NUL byte at offset 3 in its first 260 bytes\)"):
        check_text_file(weights)
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café ".encode("latin-1") * 40)
    with pytest.raises(ValueError, match=r"latin1.txt is not UTF-8 text \(40 bytes that are not UTF-8"):
        check_text_file(latin1)


def test_resolve_files_expands_patterns_in_order_and_names_each_file_once(tmp_path):
    for name in ("b.txt", "a.txt", "c.md"):
        (tmp_path / name).write_text("to be or not to be .\n", encoding="utf-8")
    a, b, c = (str(tmp_path / n) for n in ("a.txt", "b.txt", "c.md"))
    assert resolve_files([c, str(tmp_path / "*.txt"), b]) == [c, a, b]
    with pytest.raises(ValueError, match=r"'.*\*\.csv' does not exist, nor does any file match it"):
        resolve_files([a, str(tmp_path / "*.csv")])
