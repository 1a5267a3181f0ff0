"""DeBERTa-v3 as a user runs it, each step a fresh process: a transformers DebertaV2ForSequenceClassification
folder (its SentencePiece tokenizer trained on the user's text, saved by transformers) -> `tools/export.py` ->
the SavedModel served from raw text pairs with only tensorflow + tensorflow_text equals transformers'
tokenizer + model; `tools/finetune.py classification` fine-tunes from the folder (one short epoch). Every head
class loads and saves back equal to transformers in test_deberta_v3_converter.py."""

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


@pytest.fixture(scope="module")
def deberta_user(tmp_path_factory, shakespeare_files):
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("deberta_user")
    with open(shakespeare_files[0], encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()][:2000]
    save_seeded(str(folder / "deberta"), "DebertaV2ForSequenceClassification", vocab_size=301,
                id2label={0: "negative", 1: "positive"}, label2id={"negative": 0, "positive": 1},
                initializer_range=0.5, num_hidden_layers=1)  # outputs that tell texts apart; one block: quick traces
    save_tokenizer(str(folder / "deberta"), lines + TEXTS + PAIRS)
    return folder


def test_export_serves_raw_text_as_transformers_and_classification_fine_tunes(deberta_user):
    cwd = str(deberta_user)
    exported = step("export", run_tool("export", "deberta", "--formats", "savedmodel", "--base_dir", "sm",
                                       "--seq_length", "64", cwd=cwd))  # the pairs: 43 pieces
    assert "All exports match the Keras model." in exported.stdout, exported.stdout[-2000:]
    served = step("serve", python(  # the SavedModel with TensorFlow only, then transformers, in one fresh process
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        "model = tf.saved_model.load('sm/deberta/1')\n"
        f"out = model.signatures['serving_default'](text_a=tf.constant({TEXTS!r}), text_b=tf.constant({PAIRS!r}))\n"
        "print(json.dumps(out['logits'].numpy().tolist()))\n"
        "assert 'keras_bert' not in sys.modules\n"
        "import torch, transformers\n"
        "tokenizer = transformers.AutoTokenizer.from_pretrained('deberta')\n"
        "model = transformers.AutoModelForSequenceClassification.from_pretrained('deberta').eval()\n"
        f"batch = tokenizer({TEXTS!r}, {PAIRS!r}, padding=True, return_tensors='pt')\n"
        "with torch.no_grad():\n"
        "    print(json.dumps(model(**batch).logits.tolist()))\n", cwd=cwd))
    ours, theirs = (json.loads(line) for line in served.stdout.strip().splitlines()[-2:])
    assert abs(ours[0][0] - ours[1][0]) > 1e-3, ours  # the texts differ: the ids (tokenizer) are compared
    np.testing.assert_allclose(ours, theirs, atol=1e-4)

    tuned = step("finetune", run_tool(
        "finetune", "classification", "--checkpoint", "deberta", "--output_dir", "run",
        "--train_file", f"{FIXTURES}/sentiment.csv", "--labels", "negative", "positive", *ARGS, cwd=cwd))
    assert os.path.isfile(os.path.join(cwd, "run", "model.keras")), tuned.stdout[-2000:]
