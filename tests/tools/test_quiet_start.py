"""A quiet, fast start, tested as users run the tools: `python tools/<tool>.py ...` in a fresh process.

`--help` and flag errors import neither TensorFlow nor Keras (`python -X importtime` lists every
module the process imported); no tool prints TensorFlow's start-up lines (absl, CUDA, oneDNN, CPU
features) on stderr, also when it runs TensorFlow; a quoted glob in a file-list flag expands; an
MLM-only pretraining run reports no NSP metrics.
"""

import csv
import glob
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A tool is tools/<name>.py; tools/_<name>.py are parts the benchmarks share, not run on their own.
TOOLS = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "tools", "[!_]*.py")))
NOISE = re.compile(r"I0000|E0000|W0000|absl::InitializeLog|cuInit|cuda drivers|cudart|cpu_feature_guard"
                   r"|oneDNN|TensorRT|rebuild TensorFlow")
HEAVY = ("tensorflow", "keras", "tensorflow_text", "tf_keras")


def run(tool, *args, timeout=120):
    """`python -X importtime tools/<tool>.py args` from the repository root, with the environment
    a user has (no TF_CPP_MIN_LOG_LEVEL nor KERAS_BERT_LAZY_IMPORT: the tool sets its own).

    Returns `(CompletedProcess, stderr lines without the import-time lines, imported modules)`.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL", "KERAS_BERT_LAZY_IMPORT")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, "-X", "importtime", os.path.join("tools", tool + ".py"),
                             *[str(a) for a in args]], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=timeout)
    lines, modules = [], set()
    for line in result.stderr.splitlines():
        if line.startswith("import time:"):
            modules.add(line.rsplit("|", 1)[-1].strip())
        elif line.strip():
            lines.append(line)
    return result, lines, modules


def heavy_imports(modules):
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize("tool", TOOLS)
def test_help_is_quiet_and_loads_no_tensorflow(tool):
    result, stderr, modules = run(tool, "--help")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip(), "no help text"
    assert stderr == [], stderr
    assert heavy_imports(modules) == [], heavy_imports(modules)[:10]


@pytest.mark.parametrize("tool", TOOLS)
def test_flag_error_is_one_line_and_loads_no_tensorflow(tool):
    result, stderr, modules = run(tool, "--no_such_flag")
    assert result.returncode == 2, result.stderr[-3000:]
    # One line: the unknown flag, or first the required arguments it lacks.
    assert len(stderr) == 1 and stderr[0].startswith(f"{tool}.py: error: "), stderr
    assert "--no_such_flag" in stderr[0] or "required" in stderr[0], stderr
    assert heavy_imports(modules) == [], heavy_imports(modules)[:10]


@pytest.mark.parametrize("args, fragments", [
    (["--seq_length", "abc"], ["--seq_length", "'abc'"]),
    (["--files", "no_such_folder/*.txt"], ["--files", "'no_such_folder/*.txt'", "does not exist"]),
    (["--eval_files", "no_such_folder/*.txt"], ["--eval_files", "'no_such_folder/*.txt'"]),
])
def test_pretrain_bad_value_is_one_line_before_tensorflow(args, fragments):
    result, stderr, modules = run("pretrain", *args)
    assert result.returncode == 2, result.stderr[-3000:]
    assert len(stderr) == 1 and stderr[0].startswith("pretrain.py: error: "), stderr
    assert all(f in stderr[0] for f in fragments), stderr[0]
    assert heavy_imports(modules) == [], heavy_imports(modules)[:10]


def test_build_vocab_glob_expands_and_runs_tensorflow_quietly(tmp_path):
    for name, words in (("b.txt", "to be or not to be ."), ("a.txt", "the king is dead ; long live the king .")):
        (tmp_path / name).write_text(f"{words}\n" * 50, encoding="utf-8")
    output = tmp_path / "vocab.txt"
    result, stderr, modules = run("build_vocab", str(tmp_path / "*.txt"), str(tmp_path / "a.txt"),
                                  "--vocab_size", "60", "--min_count", "2", "--output", output)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "tensorflow" in modules  # it ran TensorFlow ...
    assert not [line for line in stderr if NOISE.search(line)], stderr  # ... and printed none of its start-up lines
    vocab = output.read_text(encoding="utf-8").split()
    assert {"king", "be"} <= set(vocab)  # both files were read


def test_pretrain_quoted_glob_mlm_only_has_no_nsp_metrics(tmp_path):
    """README's `--files 'corpus/*.txt' --build_vocab N`, MLM only, a few steps of a tiny model."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    sentences = ["the king is dead .", "long live the king .", "a horse , a horse .", "my kingdom for a horse .",
                 "to be or not to be .", "that is the question ."]
    for index, name in enumerate(("b.txt", "a.txt")):
        documents = ["\n".join(sentences[(index + i) % 6:] + sentences[:(index + i) % 6]) for i in range(6)]
        (corpus / name).write_text("\n\n".join(documents) + "\n", encoding="utf-8")
    (tmp_path / "held_out.txt").write_text("\n".join(sentences) + "\n\n" + "\n".join(sentences[::-1]) + "\n",
                                           encoding="utf-8")
    config = tmp_path / "bert_config.json"
    config.write_text(json.dumps({"vocab_size": 100, "hidden_size": 16, "num_layers": 1, "num_heads": 2,
                                  "intermediate_size": 32, "max_position_embeddings": 32}), encoding="utf-8")
    output_dir = tmp_path / "run"
    result, stderr, _ = run(
        "pretrain", "--files", str(corpus / "*.txt"), str(corpus / "a.txt"),
        "--eval_files", str(tmp_path / "held_*.txt"),
        "--build_vocab", "100", "--config", config, "--next_sentence", "off", "--seq_length", "16",
        "--max_predictions_per_seq", "4", "--batch_size", "2", "--train_steps", "2", "--steps_per_epoch", "1",
        "--checkpoint_every_epochs", "2", "--eval_steps", "1", "--jit_compile", "off", "--strategy", "default",
        "--no_demo", "--no_export", "--output_dir", output_dir, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not [line for line in stderr if NOISE.search(line)], stderr
    settings = json.loads((output_dir / "vocab_settings.json").read_text(encoding="utf-8"))
    assert settings["files"] == [str(corpus / "a.txt"), str(corpus / "b.txt")]  # expanded, sorted, once each
    assert "mlm_loss" in result.stdout and "val_mlm_accuracy" in result.stdout, result.stdout
    assert "nsp_" not in result.stdout and "NSP" not in result.stdout, result.stdout
    with open(output_dir / "training_log.csv", encoding="utf-8") as f:
        columns = next(csv.reader(f))
    assert "mlm_accuracy" in columns and not [c for c in columns if "nsp" in c], columns
