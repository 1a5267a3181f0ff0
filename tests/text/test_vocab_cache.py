"""build_vocab_once: a run folder's vocab is learnt once, reused on resume, refused when the settings change."""

import json
import os

import pytest

from keras_bert.text.vocab_cache import build_vocab_once


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("the king is dead . long live the king .\n" * 40 + "a horse , my kingdom for a horse .\n" * 40,
                    encoding="utf-8")
    return str(path)


def test_learnt_once_then_reused_and_refused_when_settings_change(tmp_path, corpus):
    run = tmp_path / "run"
    vocab = build_vocab_once(str(run), [corpus], 60, folder_flag="--output_dir")
    assert os.path.basename(vocab) == "vocab.txt" and "king" in open(vocab, encoding="utf-8").read().split()
    settings = json.loads((run / "vocab_settings.json").read_text(encoding="utf-8"))
    assert settings == {"build_vocab": 60, "cased": False, "files": [os.path.abspath(corpus)]}
    stamp = os.path.getmtime(vocab)
    assert build_vocab_once(str(run), [corpus], 60) == vocab and os.path.getmtime(vocab) == stamp
    with pytest.raises(ValueError, match=r"--cased False -> True\); pass a new --output_dir"):
        build_vocab_once(str(run), [corpus], 60, lower_case=False, folder_flag="--output_dir")


def test_a_byte_bpe_run_learns_vocab_json_and_merges_once(tmp_path, corpus):
    pytest.importorskip("tokenizers")
    run = tmp_path / "run"
    vocab = build_vocab_once(str(run), [corpus], 280, kind="byte_bpe")
    assert os.path.basename(vocab) == "vocab.json" and (run / "merges.txt").is_file()
    stamp = os.path.getmtime(vocab)
    assert build_vocab_once(str(run), [corpus], 280, kind="byte_bpe") == vocab and os.path.getmtime(vocab) == stamp
    with pytest.raises(ValueError, match=r"^Learning a sentencepiece vocabulary is not supported"):
        build_vocab_once(str(run), [corpus], 280, kind="sentencepiece")
