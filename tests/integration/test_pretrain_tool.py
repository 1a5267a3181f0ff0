"""tools/pretrain.py, the main job: the default corpus, a few steps, every promised output."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.slow


def test_main_job_runs_on_the_default_corpus_and_exports(tmp_path, shakespeare_files):
    # A version of an earlier export is there: this one becomes the next version, 2.
    os.makedirs(tmp_path / "savedmodels" / "bert_shakespeare" / "1")
    command = [sys.executable, os.path.join(ROOT, "tools", "pretrain.py"), "--train_steps", "6",
               "--steps_per_epoch", "3", "--eval_steps", "1", "--output_dir", str(tmp_path / "run"),
               "--savedmodels_dir", str(tmp_path / "savedmodels")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "Corpus: 74 Shakespeare texts" in out and "winters_tale_gut.txt" in out
    assert "Trained steps 0 -> 6." in out
    for name in ("final", "curves.png", "training_log.csv", "logs", "checkpoints"):
        assert os.path.exists(tmp_path / "run" / name), name
    assert os.listdir(tmp_path / "savedmodels" / "bert_shakespeare" / "1") == []  # left as it was
    assert os.path.isfile(tmp_path / "savedmodels" / "bert_shakespeare" / "2" / "saved_model.pb")
    assert "(version 2)" in out
    assert out.count("      -> ") == 10  # 5 demo sentences, from Keras and from the SavedModel
    assert "sentences from held-out texts" in out and out.count("Top-1 is a word for ") == 2
    assert "(a unigram guess, always " in out  # the baseline next to held-out MLM accuracy
    assert "answered by the exported SavedModel" in out
    # No second run of the tool here: a finished run run again trains nothing ("Trained steps 2 -> 2",
    # tests/reliability/test_console.py::test_pretrain_console_and_a_changed_rerun), and a run with a
    # vocab it built resumes with it (tests/training/test_family_defaults.py, --family roberta).
