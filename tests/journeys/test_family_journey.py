"""A RoBERTa user's journey (issue 29 §5), every step a fresh `python tools/...` or `python -c` process:

their Hugging Face folder (a seeded `RobertaForSequenceClassification` and the byte-level BPE tokenizer they
trained, saved with it) -> fine-tune a classifier on a CSV -> export a SavedModel and serve raw text pairs
with only tensorflow + tensorflow_text -> convert the `.keras` to Hugging Face and load it in transformers
(AutoTokenizer + AutoModelForSequenceClassification): the same probabilities as the SavedModel. TFLite and
ONNX carry its token ids only; MediaPipe refuses it.
"""

import csv
import json

import numpy as np
import pytest

from tests.conftest import run_tool
from tests.journeys.test_user_journey import NEGATIVE, POSITIVE, python, step

pytestmark = pytest.mark.slow

TEXTS = ["i loved every minute of it", "a dull and tedious story"]
PAIRS = ["the acting is wonderful", "awful music"]


@pytest.fixture(scope="module")
def roberta_user(tmp_path_factory):
    """The user's folder: `roberta/` as `save_pretrained` writes it and train.csv."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.processors import RobertaProcessing

    folder = tmp_path_factory.mktemp("roberta_journey")
    bpe = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator((POSITIVE + NEGATIVE) * 10, vocab_size=300, min_frequency=1, show_progress=False,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.post_processor = RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False)
    tokenizer = transformers.RobertaTokenizerFast(tokenizer_object=bpe._tokenizer)  # pylint: disable=protected-access
    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=bpe.get_vocab_size(), hidden_size=16, num_hidden_layers=2,
                                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=66,
                                        type_vocab_size=1, num_labels=2,
                                        initializer_range=0.5)  # outputs that tell texts apart
    transformers.RobertaForSequenceClassification(config).save_pretrained(folder / "roberta")
    tokenizer.save_pretrained(folder / "roberta")
    for name, repeat in (("train.csv", 2),):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["sentence", "label"])
            for _ in range(repeat):
                writer.writerows([(t, "positive") for t in POSITIVE] + [(t, "negative") for t in NEGATIVE])
    return folder


def test_a_roberta_folder_fine_tunes_exports_serves_and_goes_back_to_transformers(roberta_user):
    cwd = str(roberta_user)
    # No --eval_file: a fine-tuning run's evaluation is test_user_journey's (the same tool) and test_readme's.
    step("finetune", run_tool(
        "finetune", "--checkpoint", "roberta", "--task", "classification", "--train_file", "train.csv",
        "--labels", "negative", "positive", "--epochs", "1", "--batch_size", "4",
        "--seq_length", "32", "--strategy", "default", "--output_dir", "run", cwd=cwd))
    # The .keras (its vocab.json + merges.txt inside) loads in a fresh process; the export checks every
    # SavedModel signature against the Keras model on raw text. TFLite and ONNX (the same export) carry token
    # ids only (no kernel or op runs a byte-level BPE: the tokenizer's portable_text_ops capability), the text
    # contract beside them; MediaPipe refuses in one line.
    exported = step("export", run_tool("export", "run/model.keras", "--formats", "savedmodel,tflite,onnx",
                                       "--base_dir", "sm", cwd=cwd))
    assert "All exports match the Keras model." in exported.stdout, exported.stdout[-2000:]
    written = {path.name for fmt in ("tflite", "onnx") for path in (roberta_user / "sm" / "model" / fmt).rglob("*")
               if path.is_file()}
    assert {"model_float32.tflite", "model.onnx", "vocab.json", "merges.txt"} <= written, written
    assert not written & {"text_float32.tflite", "text_model.onnx"}, written
    refused = run_tool("export", "run/model.keras", "--formats", "mediapipe", "--base_dir", "mp", cwd=cwd)
    assert refused.returncode != 0 and "MediaPipe's BertTokenizer runs WordPiece only" in refused.stderr.splitlines()[-1]
    step("convert to huggingface", run_tool("convert_checkpoint", "--input", "run/model.keras",
                                            "--format", "huggingface", "--output", "hf", cwd=cwd))
    loaded = step("serve, then load in transformers", python(  # TensorFlow only, then transformers: one process
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        "model = tf.saved_model.load('sm/model/1')\n"
        f"out = model.signatures['serving_default'](text_a=tf.constant({TEXTS!r}), text_b=tf.constant({PAIRS!r}))\n"
        "print(json.dumps(out['probabilities'].numpy().tolist()))\n"
        "assert 'keras_bert' not in sys.modules\n"
        "import torch, transformers\n"
        "tokenizer = transformers.AutoTokenizer.from_pretrained('hf')\n"
        "model = transformers.AutoModelForSequenceClassification.from_pretrained('hf')\n"
        f"batch = tokenizer({TEXTS!r}, {PAIRS!r}, padding=True, return_tensors='pt')\n"
        "with torch.no_grad():\n"
        "    print(json.dumps(model(**batch).logits.softmax(-1).tolist()))\n"
        "print(type(tokenizer).__name__, type(model).__name__)\n", cwd=cwd))
    lines = loaded.stdout.strip().splitlines()
    assert lines[-1] == "RobertaTokenizer RobertaForSequenceClassification", lines[-1]
    ours, theirs = json.loads(lines[-3]), json.loads(lines[-2])
    assert abs(ours[0][0] - ours[1][0]) > 1e-3, ours  # the texts differ: the ids (tokenizer) are compared
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
