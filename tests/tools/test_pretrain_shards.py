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

