"""DeBERTa-v3 as a user runs it, each step a fresh process: a transformers DebertaV2ForSequenceClassification
folder (its SentencePiece tokenizer trained on the user's text, saved by transformers) -> `tools/export.py` ->
the SavedModel served from raw text pairs with only tensorflow + tensorflow_text equals transformers'
tokenizer + model; and `tools/finetune.py` fine-tunes a task of each head class from the folder (one process, each
task's `main`, one short epoch)."""

import csv
import json
import os

import numpy as np
import pytest

from tests.conftest import ROOT, run_tool
from tests.journeys.test_user_journey import python, step
from tests.models.deberta_v3.tiny_deberta import save_seeded, save_tokenizer

pytestmark = pytest.mark.slow
FIXTURES = os.path.join(ROOT, "tests", "data", "fixtures")
TEXTS = ["A gripping, beautifully shot thriller.", "The plot is thin and the jokes fall flat."]
PAIRS = ["I loved it", "awful music, my lord"]
ARGS = ["--epochs", "1", "--batch_size", "4", "--seq_length", "48", "--strategy", "default", "--jit_compile", "off",
        "--quiet"]
TASKS = {  # task -> its flags on the fixtures
    "classification": ["--train_file", f"{FIXTURES}/sentiment.csv", "--labels", "negative", "positive"],
    "token_classification": ["--train_file", f"{FIXTURES}/ner.conll"],
    "squad": ["--train_file", f"{FIXTURES}/squad_v1.json"],
    "multiple_choice": ["--train_file", "swag.csv", "--endings", "ending0", "ending1"],
}  # one task per head class (sequence, token, span, multiple choice); the others reuse them


@pytest.fixture(scope="module")
def deberta_user(tmp_path_factory, shakespeare_files):
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("deberta_user")
    with open(shakespeare_files[0], encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()][:2000]
    save_seeded(str(folder / "deberta"), "DebertaV2ForSequenceClassification", vocab_size=301,
                id2label={0: "negative", 1: "positive"}, label2id={"negative": 0, "positive": 1},
                initializer_range=0.5)  # outputs that tell texts apart
    save_tokenizer(str(folder / "deberta"), lines + TEXTS + PAIRS)
    with open(folder / "swag.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["context", "ending0", "ending1", "label"])
        writer.writerows([["The king rose.", "He spoke.", "He slept.", 0], ["Night fell.", "Stars shone.",
                                                                              "Noon came.", 0]] * 2)
    return folder


def test_export_serves_raw_text_as_transformers_and_every_task_fine_tunes(deberta_user):
    cwd = str(deberta_user)
    exported = step("export", run_tool("export", "deberta", "--formats", "savedmodel", "--base_dir", "sm",
                                       "--seq_length", "64", cwd=cwd))  # the pairs: 43 pieces
    assert "All exports match the Keras model." in exported.stdout, exported.stdout[-2000:]
    served = step("serve", python(
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        "model = tf.saved_model.load('sm/deberta/1')\n"
        f"out = model.signatures['serving_default'](text_a=tf.constant({TEXTS!r}), text_b=tf.constant({PAIRS!r}))\n"
        "print(json.dumps(out['logits'].numpy().tolist()))\n"
        "assert 'keras_bert' not in sys.modules\n", cwd=cwd))
    loaded = step("transformers", python(
        "import json, torch, transformers\n"
        "tokenizer = transformers.AutoTokenizer.from_pretrained('deberta')\n"
        "model = transformers.AutoModelForSequenceClassification.from_pretrained('deberta').eval()\n"
        f"batch = tokenizer({TEXTS!r}, {PAIRS!r}, padding=True, return_tensors='pt')\n"
        "with torch.no_grad():\n"
        "    print(json.dumps(model(**batch).logits.tolist()))\n", cwd=cwd))
    ours, theirs = (json.loads(done.stdout.strip().splitlines()[-1]) for done in (served, loaded))
    assert abs(ours[0][0] - ours[1][0]) > 1e-3, ours  # the texts differ: the ids (tokenizer) are compared
    np.testing.assert_allclose(ours, theirs, atol=1e-4)

    script = ("import sys\nsys.path.insert(0, 'TOOLS')\nimport finetune\n"
              "for task, flags in TASKS.items():\n"
              "    finetune.main([task, '--checkpoint', 'deberta', '--output_dir', 'run_' + task, *flags, *ARGS])\n"
              "    print('tuned', task, flush=True)\n").replace("TOOLS", os.path.join(ROOT, "tools"))
    tuned = step("finetune", python(f"TASKS = {TASKS!r}\nARGS = {ARGS!r}\n" + script, cwd=cwd))
    assert [line for line in tuned.stdout.splitlines() if line.startswith("tuned")] == [
        f"tuned {task}" for task in TASKS]
    for task in TASKS:
        assert os.path.isfile(os.path.join(cwd, "run_" + task, "model.keras")), task
