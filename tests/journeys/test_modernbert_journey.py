"""A ModernBERT from raw text (issue 29 §5), every step a fresh `python tools/...` or `python -c` process:

pretrain a tiny ModernBERT on the user's text files (`--family modernbert`: a byte-level BPE learnt from them,
masked LM only at ModernBERT's 30 %, the model in --config's sizes) -> fine-tune a classifier on a CSV ->
export a SavedModel (its parity table) and serve raw text with only tensorflow + tensorflow_text -> convert
the `.keras` to Hugging Face and load it in transformers (AutoTokenizer + AutoModelForSequenceClassification):
the same probabilities as the SavedModel. Its resume (the same `run_pretraining` as BERT's) is pinned in
process by tests/training/test_pretraining.py, without another ~20 s tool run here.
"""

import json

import numpy as np
import pytest

from tests.conftest import run_tool
from tests.journeys.test_user_journey import python, step, user  # noqa: F401  (`user`: the corpus + CSV fixture)

pytestmark = pytest.mark.slow

TEXTS = ["i loved every minute of it", "a dull and tedious story"]
# hidden 32, 3 layers (global, local, local), sequences of 32: the window (128) covers them
TINY = {"vocab_size": 400, "hidden_size": 32, "num_layers": 3, "num_heads": 2, "intermediate_size": 64,
        "max_position_embeddings": 64}
PRETRAIN = ["--family", "modernbert", "--files", "corpus/*.txt", "--build_vocab", "400", "--config", "tiny.json",
            "--seq_length", "32", "--batch_size", "4", "--steps_per_epoch", "2", "--strategy", "cpu",
            "--jit_compile", "off", "--no_demo", "--no_export", "--output_dir", "runs/pretrain"]


def test_a_modernbert_pretrained_from_raw_text_fine_tunes_exports_serves_and_goes_to_transformers(user):  # noqa: F811
    cwd = str(user)
    (user / "tiny.json").write_text(json.dumps(TINY), encoding="utf-8")
    pretrained = step("pretrain", run_tool("pretrain", *PRETRAIN, "--train_steps", "4", cwd=cwd))
    assert "Trained steps 0 -> 4." in pretrained.stdout and "nsp" not in pretrained.stdout, pretrained.stdout[-2000:]
    final = user / "runs" / "pretrain" / "final"
    config = json.loads((final / "keras_bert_config.json").read_text())
    assert (config["family"], config["hidden_size"], config["num_layers"], config["local_attention"]) == (
        "modernbert", 32, 3, 128)
    assert json.loads((final / "text_config.json").read_text())["kind"] == "byte_bpe"
    # No --eval_file: a fine-tuning run's evaluation is test_user_journey's (the same tool) and test_readme's.
    step("finetune", run_tool(
        "finetune", "--checkpoint", "runs/pretrain/final", "--task", "classification", "--train_file", "train.csv",
        "--labels", "negative", "positive", "--epochs", "1", "--batch_size", "4",
        "--seq_length", "32", "--strategy", "default", "--output_dir", "runs/cls", cwd=cwd))
    exported = step("export", run_tool("export", "runs/cls/model.keras", "--formats", "savedmodel",
                                       "--base_dir", "sm", cwd=cwd))
    assert "All exports match the Keras model." in exported.stdout, exported.stdout[-2000:]
    step("convert to huggingface", run_tool("convert_checkpoint", "--input", "runs/cls/model.keras",
                                            "--format", "huggingface", "--output", "hf", cwd=cwd))
    loaded = step("serve, then load in transformers", python(  # TensorFlow only, then transformers: one process
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        "model = tf.saved_model.load('sm/model/1')\n"
        f"out = model.signatures['classify'](text_a=tf.constant({TEXTS!r}))\n"
        "print(json.dumps(out['probabilities'].numpy().tolist()))\n"
        "assert 'keras_bert' not in sys.modules, 'keras_bert was imported'\n"
        "import torch, transformers\n"
        "tokenizer = transformers.AutoTokenizer.from_pretrained('hf')\n"
        "model = transformers.AutoModelForSequenceClassification.from_pretrained('hf')\n"
        f"batch = tokenizer({TEXTS!r}, padding=True, return_tensors='pt')\n"
        "with torch.no_grad():\n"
        "    print(json.dumps(model(**batch).logits.softmax(-1).tolist()))\n"
        "print(type(model).__name__)\n", cwd=cwd))
    lines = loaded.stdout.strip().splitlines()
    assert lines[-1] == "ModernBertForSequenceClassification", lines[-1]
    ours, theirs = json.loads(lines[-3]), json.loads(lines[-2])
    assert abs(ours[0][0] - ours[1][0]) > 1e-5, ours  # the texts differ: the ids (tokenizer) are compared
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
