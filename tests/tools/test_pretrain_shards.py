"""`python tools/pretrain.py --shards DIR`: a run fed by tools/write_shards.py's folder, its text contract with it."""

import os

from tests.conftest import SHARDS, run_tool


def test_pretrain_reads_the_shards_and_their_contract(shards, tmp_path):
    run = tmp_path / "run"
    result = run_tool("pretrain", "--shards", shards[0], "--preset", "bert_tiny_uncased", "--batch_size", "4",
                      "--train_steps", "2", "--steps_per_epoch", "1", "--max_predictions_per_seq", "5",
                      "--jit_compile", "off", "--strategy", "cpu", "--no_demo", "--no_export", "--quiet",
                      "--output_dir", run)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Trained steps 0 -> 2." in result.stdout
    with open(run / "final" / "text_config.json", encoding="utf-8") as f:
        assert f'"max_seq_length": {SHARDS["seq_length"]}' in f.read()
    assert os.path.exists(run / "final" / "vocab.txt")


def test_without_tensorflow_a_jax_run_is_refused_in_one_line(shards, tmp_path):
    """Where `import tensorflow` fails (the lent GPU machines: JAX only), the run says what it needs, in one line."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    blocked = ("import runpy, sys; sys.modules['tensorflow'] = None; sys.path.insert(0, 'tools'); "
               "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", blocked, os.path.join("tools", "pretrain.py"), "--shards", shards[0],
                             "--preset", "bert_tiny_uncased", "--no_demo", "--output_dir", str(tmp_path / "run")],
                            cwd=ROOT, env=dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=ROOT),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[-3000:]
    assert result.stderr.startswith("pretrain.py: error: this run needs TensorFlow on JAX too") and \
        "pip install tensorflow-cpu tensorflow-text" in result.stderr
