"""Bad input to the tools: one row per case (tool, arguments, exit status, fragments of the one
line on stderr naming the flag, file or value). Each case is `python tools/<tool>.py ...` in a fresh
process, as a user runs it: what the user sees on stderr is the one line (no start-up noise)."""

import gzip
import json
import os

import pytest

from tests.conftest import run_tool
from tests.reliability.conftest import FIXTURES, assert_one_line_error

SENTIMENT = os.path.join(FIXTURES, "sentiment.csv")


def _files(tmp):
    """Named paths each case may use: a file where a folder belongs, a gzip and a binary corpus..."""
    (tmp / "a_file").write_text("x", encoding="utf-8")
    with gzip.open(tmp / "corpus.txt.gz", "wt", encoding="utf-8") as f:
        f.write("to be or not to be .\n" * 50)
    (tmp / "model.bin").write_bytes(bytes(range(256)) * 8)
    (tmp / "empty.txt").write_text("\n\n", encoding="utf-8")
    (tmp / "one_doc.txt").write_text("to be or not to be .\nthat is the question .\n", encoding="utf-8")
    (tmp / "one_class.csv").write_text("sentence,label\ngood,pos\ngreat,pos\n", encoding="utf-8")
    (tmp / "a_dir").mkdir()
    (tmp / "corpus.txt").write_text("\n".join(["the king is dead .", "long live the king .", "",
                                               "a horse , a horse .", "my kingdom for a horse ."] * 4) + "\n",
                                    encoding="utf-8")
    os.symlink(tmp / "loop_b", tmp / "loop_a")  # a symlink loop: loop_a -> loop_b -> loop_a
    os.symlink(tmp / "loop_a", tmp / "loop_b")
    stale = tmp / "stale_vocab_run"
    stale.mkdir()
    (stale / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n", encoding="utf-8")
    (stale / "vocab_settings.json").write_text(json.dumps({"build_vocab": 100, "cased": False}), encoding="utf-8")
    return {name.replace(".", "_"): str(tmp / name) for name in os.listdir(tmp)}


def _argv(template, paths, checkpoint, request):
    if any("{classifier}" in a for a in template):  # built only for the rows that use it
        paths = dict(paths, classifier=request.getfixturevalue("tiny_classifier"))
    return [a.format(checkpoint=checkpoint, fixtures=FIXTURES, **paths) for a in template]


PRETRAIN = ["--no_export", "--no_demo", "--output_dir", "{a_dir}/run", "--files", "{corpus_txt}"]
FINETUNE = ["--checkpoint", "{checkpoint}", "--task", "classification", "--train_file", SENTIMENT,
            "--output_dir", "{a_dir}/ft", "--epochs", "1", "--batch_size", "4", "--seq_length", "16",
            "--strategy", "default"]
CONVERT = ["--input", "{checkpoint}", "--format", "keras"]
# tool, arguments (formatted with the paths of _files and {checkpoint}), exit status, fragments
CASES = [
    ("pretrain", ["--learning_rate", "-1"], 2, ["--learning_rate", "'-1'"]),
    ("pretrain", ["--learning_rate", "0"], 2, ["--learning_rate", "> 0"]),
    ("pretrain", ["--learning_rate", "fast"], 2, ["--learning_rate", "'fast'"]),
    ("pretrain", PRETRAIN + ["--train_steps", "2", "--jit_compile", "off", "--learning_rate", "1e30"], 2,  # (no XLA)
     ["diverged at step", "--learning_rate"]),
    ("pretrain", ["--batch_size", "0"], 2, ["--batch_size", "positive integer"]),
    ("pretrain", ["--train_steps", "-5"], 2, ["--train_steps", "'-5'"]),
    ("pretrain", ["--seq_length", "abc"], 2, ["--seq_length", "'abc'"]),
    ("pretrain", ["--steps_per_epoch", "0"], 2, ["--steps_per_epoch"]),
    ("pretrain", ["--checkpoint_every_epochs", "0"], 2, ["--checkpoint_every_epochs"]),
    ("pretrain", ["--train_steps", "500", "--warmup_steps", "600"], 2, ["--warmup_steps 600", "--train_steps 500"]),
    ("pretrain", ["--weight_decay", "-0.1"], 2, ["--weight_decay", "'-0.1'"]),
    ("pretrain", ["--build_vocab", "0"], 2, ["--build_vocab", "'0'"]),
    ("pretrain", ["--optimizer", "sgd"], 2, ["--optimizer", "'sgd'"]),
    ("pretrain", ["--strategy", "gpu"], 2, ["--strategy", "'gpu'"]),
    ("pretrain", ["--mixed_precision", "fp8"], 2, ["--mixed_precision", "'fp8'"]),
    ("pretrain", ["--output_dir", "{a_file}"], 2, ["--output_dir", "a_file", "is a file"]),
    ("pretrain", ["--output_dir", "{a_file}/run"], 2, ["--output_dir", "is a file"]),
    ("pretrain", PRETRAIN + ["--files", "{a_dir}/missing.txt"], 2, ["missing.txt", "does not exist"]),
    ("pretrain", PRETRAIN + ["--files", "{a_dir}"], 2, ["a_dir", "is a directory"]),
    ("pretrain", PRETRAIN + ["--files", "{corpus_txt_gz}"], 2, ["corpus.txt.gz", "gzip", "gunzip"]),
    ("pretrain", PRETRAIN + ["--files", "{model_bin}"], 2, ["model.bin", "not UTF-8 text"]),
    ("pretrain", PRETRAIN + ["--files", "{empty_txt}"], 2, ["hold no text"]),
    ("pretrain", PRETRAIN + ["--files", "{one_doc_txt}"], 2, ["single document"]),
    ("pretrain", PRETRAIN + ["--seq_length", "512"], 2, ["--seq_length 512", "max_position_embeddings"]),
    ("pretrain", ["--shards", "{a_file}"], 2, ["--shards", "is not a shards folder", "write_shards.py"]),
    ("pretrain", ["--files", "{corpus_txt}", "--shards", "{a_dir}"], 2, ["--shards", "drop --files"]),
    ("write_shards", ["--files", "{corpus_txt}", "--output_dir", "{a_dir}/s", "--vocab", "{a_dir}/v.txt"], 2,
     ["--vocab", "v.txt", "does not exist"]),
    ("pretrain", PRETRAIN + ["--phase2_seq_length", "512"], 2, ["--phase2_seq_length 512", "max_position_embeddings"]),
    ("pretrain", PRETRAIN + ["--phase2_seq_length", "128", "--phase2_fraction", "1"], 2,
     ["--phase2_fraction", "between 0 and 1"]),
    ("pretrain", ["--phase2_fraction", "0.2"], 2, ["--phase2_fraction needs --phase2_seq_length"]),
    ("pretrain", PRETRAIN + ["--batch_size", "100000000"], 2, ["--batch_size 100000000", "GiB"]),
    ("pretrain", PRETRAIN + ["--preset", "bert_huge"], 2, ["'bert_huge'"]),
    ("pretrain", PRETRAIN + ["--config", "{a_dir}/nope.json"], 2, ["nope.json"]),
    ("pretrain", PRETRAIN + ["--vocab", "{a_dir}/vocab.txt"], 2, ["vocab.txt", "does not exist"]),
    ("pretrain", PRETRAIN + ["--init_checkpoint", "{a_dir}/ckpt"], 2, ["a_dir/ckpt"]),
    ("pretrain", PRETRAIN + ["--build_vocab", "100", "--cased", "--output_dir", "{stale_vocab_run}"], 2,
     ["vocab.txt", "--cased False -> True", "new --output_dir"]),
    ("finetune", ["--task", "classification", "--train_file", "x.csv"], 2, ["--checkpoint"]),
    ("finetune", ["--checkpoint", "{checkpoint}", "--task", "summarize", "--train_file", SENTIMENT], 2,
     ["--task summarize", "unknown task", "classification"]),
    ("finetune", FINETUNE + ["--text_b", "hypothesis"], 2, ["--text_b", "task classification", "pair_classification"]),
    ("finetune", FINETUNE + ["--epochs", "0"], 2, ["--epochs", "'0'"]),
    ("finetune", FINETUNE + ["--max_query_length", "16"], 2, ["--max_query_length",
                                                              "does not apply to task classification", "squad"]),
    ("finetune", FINETUNE + ["--task", "squad"], 2, ["one task per run", "classification", "squad"]),
    ("finetune", ["squad", "--checkpoint", "x", "--train_file", "y", "--doc_stride", "0"], 2,
     ["--doc_stride", "'0'"]),
    ("finetune", FINETUNE + ["--keep_checkpoints", "0"], 2, ["--keep_checkpoints", "'0'"]),
    ("finetune", FINETUNE + ["--learning_rate", "-3e-5"], 2, ["--learning_rate", "--learning_rate=VALUE"]),
    ("finetune", FINETUNE + ["--learning_rate=-3e-5"], 2, ["--learning_rate", "'-3e-5'"]),
    ("finetune", FINETUNE + ["--checkpoint_every_steps", "-1"], 2, ["--checkpoint_every_steps"]),
    ("finetune", FINETUNE + ["--output_dir", "{a_file}"], 2, ["--output_dir", "a_file", "is a file"]),
    ("finetune", FINETUNE + ["--checkpoint", "{a_dir}/nope"], 2, ["nope", "does not exist"]),
    ("finetune", FINETUNE + ["--train_file", "{a_dir}/train.csv"], 2, ["train.csv", "does not exist"]),
    ("finetune", FINETUNE + ["--train_file", "{one_class_csv}"], 2, ["one_class.csv", "'pos'", "two classes"]),
    ("finetune", FINETUNE + ["--label", "stars"], 2, ["'stars'", "--label"]),
    ("finetune", FINETUNE + ["--labels", "positive"], 2, ["'negative'", "--labels"]),
    ("finetune", FINETUNE + ["--batch_size", "100000000"], 2, ["--batch_size 100000000", "GiB"]),
    ("build_vocab", ["{a_dir}/missing.txt", "--output", "{a_dir}/v.txt"], 2, ["missing.txt", "does not exist"]),
    ("build_vocab", ["{corpus_txt_gz}", "--output", "{a_dir}/v.txt"], 2, ["corpus.txt.gz", "gzip"]),
    ("build_vocab", ["{model_bin}", "--output", "{a_dir}/v.txt"], 2, ["model.bin", "not UTF-8"]),
    ("build_vocab", ["{corpus_txt}", "--output", "{a_dir}/v.txt", "--vocab_size", "0"], 2, ["--vocab_size"]),
    ("build_vocab", ["{corpus_txt}", "--output", "{a_dir}/v.txt", "--vocab_size", "30"], 2,
     ["--vocab_size", "30", "too small"]),
    ("build_vocab", ["{corpus_txt}"], 2, ["--output"]),
    ("build_vocab", ["{corpus_txt}", "--output", "{a_dir}"], 2, ["--output", "is a folder", "vocab.txt"]),
    ("export", ["{a_dir}/missing.keras", "--base_dir", "{a_dir}/sm"], 2, ["missing.keras"]),
    ("export", ["{checkpoint}", "--formats", "torchscript"], 2, ["--formats", "torchscript"]),
    ("export", ["{checkpoint}", "--base_dir", "{a_file}"], 2, ["--base_dir", "a_file", "is a file"]),
    ("export", ["{checkpoint}", "--base_dir", "{loop_a}/sm"], 2, ["--base_dir", "loop_a", "symlink loop"]),
    ("pretrain", PRETRAIN + ["--output_dir", "{loop_a}/run"], 2, ["--output_dir", "loop_a", "symlink loop"]),
    ("finetune", FINETUNE + ["--output_dir", "{loop_a}"], 2, ["--output_dir", "loop_a", "symlink loop"]),
    ("export", ["{checkpoint}", "--version", "0"], 2, ["--version", "'0'"]),
    ("export", ["{checkpoint}", "--seq_length", "-8"], 2, ["--seq_length", "'-8'"]),
    ("convert_checkpoint", ["--input", "{checkpoint}"], 2, ["--output", "--format"]),
    ("convert_checkpoint", CONVERT + ["--output", "{a_file}"], 2, ["a_file", "is a file"]),
    ("convert_checkpoint", CONVERT + ["--format", "onnx", "--output", "{a_dir}/o"], 2, ["--format", "'onnx'"]),
    ("convert_checkpoint", ["--input", "{a_dir}/nope", "--output", "{a_dir}/o", "--format", "keras"], 2,
     ["nope", "does not exist"]),
    ("convert_checkpoint", ["--input", "{model_bin}", "--output", "{a_dir}/o", "--format", "keras"], 2,
     ["model.bin", "pickle"]),
    ("convert_checkpoint", ["--input", "{classifier}", "--output", "{a_dir}/o", "--format", "st"], 2,
     ["--input", "model.keras", "classification model", "--format sentence_transformers", "--model embedding"]),
    ("convert_checkpoint", CONVERT[:2] + ["--output", "{a_dir}/o", "--format", "st", "--model", "pretrainer"], 2,
     ["--model pretrainer", "--format sentence_transformers", "--model auto"]),
    ("export", ["{checkpoint}", "--labels", "neg,"], 2, ["--labels", "'neg,'", "label 2 is empty"]),
    ("pretrain", ["--seq_length", "32", "--phase2_seq_length", "16"], 2, ["--phase2_seq_length 16", "--seq_length 32"]),
    ("benchmark", ["nosuch"], 2, ["unknown benchmark", "'nosuch'", "pipeline"]),
    ("benchmark", ["accelerator", "--only", "ours,tf"], 2, ["--only", "'tf'", "keras_hub"]),
    ("get_corpus", ["--dir", "{a_file}"], 2, ["--dir", "a_file", "is a file"]),
]


@pytest.mark.parametrize("tool, argv, status, fragments", CASES,
                         ids=[f"{c[0]} {' '.join(c[1][-2:])}" for c in CASES])
def test_tool_refuses_bad_input_in_one_line(tool, argv, status, fragments, tmp_path, tiny_checkpoint, request):
    paths = _files(tmp_path)
    result = run_tool(tool, *_argv(argv, paths, tiny_checkpoint, request), timeout=300)
    assert result.returncode == status, result.stderr[-3000:]
    assert_one_line_error(result.stderr, *fragments)
