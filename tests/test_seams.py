"""The seams keep their shape: an export format is one module plus one record, and nothing below tasks/ switches
on a task, model-kind, model-family or tokenizer-kind name (compares one, or keys a table by one)."""

import ast
import os
import subprocess
import sys
import textwrap

import pytest

import keras_bert
from keras_bert.choices import CHECKPOINT_MODELS

PACKAGE = os.path.dirname(keras_bert.__file__)
ROOT = os.path.dirname(PACKAGE)


def kind_names():
    """Every task name, model-kind name, family name and tokenizer kind: TASKS' keys, load_checkpoint's model
    choices, FAMILIES' names and the Hugging Face model_types they read, the tokenizer kinds' records."""
    from keras_bert.models.families import FAMILIES
    from keras_bert.tasks import TASKS
    from keras_bert.text.tokenizer_kinds import KINDS

    families = set(FAMILIES) | {t for family in FAMILIES.values() for t in family.model_types}
    return set(TASKS) | (set(CHECKPOINT_MODELS) - {"auto"}) | families | set(KINDS)


# Other vocabularies that share a word with these names, allowed where the compared variable says which it is.
OTHER_VOCABULARIES = {"model": "load_checkpoint's public model= choice", "layout": "the packer's pair layouts",
                      "pair_layout": "the packer's pair layouts", "input_format": "choices.INPUT_FORMATS",
                      "problem_type": "Hugging Face's problem_type"}


def name_switches(path, names):
    """`line: code` of every comparison with a name of `names` and every dict literal keyed by one. A comparison
    of a variable named for another vocabulary (`OTHER_VOCABULARIES`: `model == "encoder"`, `layout == "bert"`)
    is allowed."""
    found = []

    def constants(node):
        elements = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return [e.value for e in elements if isinstance(e, ast.Constant) and e.value in names]

    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            other = any((o.id if isinstance(o, ast.Name) else o.attr if isinstance(o, ast.Attribute) else None)
                        in OTHER_VOCABULARIES for o in operands)
            if not other and any(constants(o) for o in operands):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(k is not None and constants(k) for k in node.keys):
            found.append(f"{node.lineno}: a table keyed by {[k.value for k in node.keys if k is not None and constants(k)]}")
    return found


def guarded_parts():
    """The parts of the package the switch check reads: every part of tests/test_layout.py's ranks (its folders and
    its top-level modules: choices.py, config.py, ...) but tasks/ (where task names are mapped) and cli.py (the
    command line, above it)."""
    from tests.test_layout import RANK

    return sorted(part if os.path.isdir(os.path.join(PACKAGE, part)) else part + ".py"
                  for part in RANK if part not in ("tasks", "cli"))


def switches_in(part):
    names = kind_names()
    found = []
    root = os.path.join(PACKAGE, part)
    walked = os.walk(root) if os.path.isdir(root) else [(PACKAGE, [], [part])]
    for folder, _, files in walked:
        for file in sorted(files):
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                found += [f"{os.path.relpath(path, PACKAGE)}:{hit}" for hit in name_switches(path, names)]
    return found


# Switches left, each (file, how the hit ends) and why.
ALLOWED_SWITCHES = (("text/packer.py", "a table keyed by ['bert', 'roberta']"),  # the pair layouts (LAYOUTS)
                    ("config.py", "self.family != 'bert'"))  # Google's layout: the default family writes no keys


def test_nothing_below_tasks_names_a_task_a_model_kind_a_family_or_a_tokenizer_kind():
    """The seams of tasks, families and tokenizer kinds: a task is its class (tasks/), a family its record and
    converter (models/), a tokenizer kind its record (text/tokenizer_kinds.py), each asked, never named below
    tasks/. A name may still be data: a default value, a record's own name, a name returned or passed on, a
    message; what is flagged is a comparison with one or a dict literal keyed by one (choices.py's former
    HF_PROBLEM_TYPES, task name -> problem_type: the task classes declare it, tasks/ maps the two)."""
    assert {"choices.py", "config.py", "models", "checkpoints", "export"} <= set(guarded_parts())
    assert [hit for part in guarded_parts() for hit in switches_in(part)
            if not any(hit.startswith(file) and hit.endswith(end) for file, end in ALLOWED_SWITCHES)] == []


def test_the_switch_check_finds_a_comparison_and_a_table(tmp_path):
    path = tmp_path / "switchy.py"
    path.write_text(textwrap.dedent("""
        def f(model, task):
            if model == "encoder":  # the public choice: allowed
                pass
            if task in ("squad", "other"):
                pass
            if config.family == "roberta":
                pass
            kind = "spm"  # a name as data: allowed
            if text_config.kind != kind and text_config.kind != "wordpiece":
                pass
            return {"pretrainer": 1, "x": 2}

        PROBLEM_TYPES = {"classification": "single_label_classification", "regression": "regression"}
    """))
    assert sorted(int(hit.split(":")[0]) for hit in name_switches(str(path), kind_names())) == [5, 7, 10, 12, 14]


def python_files(part):
    for folder, _, files in os.walk(os.path.join(PACKAGE, part)):
        for file in sorted(files):
            if file.endswith(".py"):
                yield os.path.join(folder, file)


def module_parameters(path):
    """`line: function` of every function in `path` with a parameter named `module` (export's ServingModule)."""
    return [f"{node.lineno}: {node.name}" for node in ast.walk(ast.parse(open(path, encoding="utf-8").read()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and "module" in [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]]


def serving_writes(path):
    """`line: code` of every attribute set on a serving object: `serving.x = ...`, `self.serving.x = ...`,
    `setattr(serving, ...)`."""
    def is_serving(node):
        return (isinstance(node, ast.Name) and node.id == "serving") or (
            isinstance(node, ast.Attribute) and node.attr == "serving")

    found = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                   if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        if any(isinstance(t, ast.Attribute) and is_serving(t.value) for t in targets):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and node.args and is_serving(node.args[0])):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_serving_is_an_object_no_hook_takes_export_s_module_and_export_sets_nothing_on_it():
    """A serving object owns its state: no function in tasks/ takes a `module`, nothing in export/ sets an
    attribute on a serving object, and a ServingModule's serving object has exactly the attributes it was
    built with."""
    import keras_bert
    from keras_bert.export import ServingModule
    from keras_bert.export.serving_module import build_serving
    from tests.models.tiny_bert import TINY

    assert [f"{os.path.relpath(p, PACKAGE)}:{hit}" for p in python_files("tasks") for hit in module_parameters(p)] == []
    assert [f"{os.path.relpath(p, PACKAGE)}:{hit}" for p in python_files("export") for hit in serving_writes(p)] == []
    model = keras_bert.build_classifier(keras_bert.build_encoder(TINY), 2)
    assert vars(ServingModule(model, seq_length=8).serving).keys() == vars(build_serving(model, seq_length=8)).keys()


def test_the_serving_checks_find_a_module_parameter_and_a_write(tmp_path):
    path = tmp_path / "leaky.py"
    path.write_text(textwrap.dedent("""
        def hook(cls, module, texts):
            return module.tokenizer(texts)

        class Wrapper:
            def __init__(self, serving):
                self.serving = serving
                self.serving.mask_id = 4
                setattr(serving, "vocab_table", None)
    """))
    assert module_parameters(str(path)) == ["2: hook"]
    assert [hit.split(":")[0] for hit in serving_writes(str(path))] == ["8", "9"]


TOY_FORMAT = '''
"""A toy export format: the served outputs of the sample ids, as JSON (one module, its writer)."""

import json
import os

import numpy as np

from keras_bert.export import ServingModule, verify
from keras_bert.export.verify_reference import keras_outputs, sample_ids


def write(model, path, job):
    module = ServingModule(model, job.tokenizer, seq_length=job.seq_length, options=job.options)
    ids = sample_ids(module.serving, job.sample_texts)
    outputs = {name: np.asarray(value).tolist() for name, value in module.serve_ids(ids).items()}
    os.makedirs(path)
    with open(os.path.join(path, "outputs.json"), "w", encoding="utf-8") as f:
        json.dump(outputs, f)
    with open(os.path.join(path, "outputs.json"), encoding="utf-8") as f:
        written = {name: np.asarray(value, np.float32) for name, value in json.load(f).items()}
    report = verify.ExportReport(path)
    report.rows += verify.compare("toy", "serve_ids", keras_outputs(module.serving, ids, tokens=False), written, 1e-5)
    return report
'''

TOY_EXPORT = '''
import json
import sys

import keras_bert
from keras_bert.export import ExportFormat, export_model, formats

import toy_format

formats.FORMAT_RECORDS += (ExportFormat("toy", "toy", toy_format.write),)  # the one registration line

tokenizer = keras_bert.Tokenizer(sys.argv[2])
config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1, num_heads=2,
                               intermediate_size=32, max_position_embeddings=64)
model = keras_bert.build_classifier(config, num_classes=2)
reports = export_model(model, "tiny", formats=["toy"], tokenizer=tokenizer, base_dir=sys.argv[1],
                       seq_length=16, options={"labels": ["neg", "pos"]})
print(json.dumps({fmt: [report.ok, report.path, [row.output for row in report.rows]]
                  for fmt, report in reports.items()}))
'''


@pytest.mark.slow
def test_a_toy_format_plugs_in_with_one_module_and_one_record(tmp_path, minilm_dir):
    """A format written to a temporary module, registered with one line, exports a model end to end
    through export_model (in a fresh process): its folder, its parity rows, the text contract beside it."""
    (tmp_path / "toy_format.py").write_text(TOY_FORMAT)
    (tmp_path / "run.py").write_text(TOY_EXPORT)
    vocab = tmp_path / "vocab.txt"
    with open(os.path.join(minilm_dir, "vocab.txt"), encoding="utf-8") as f:
        vocab.write_text("\n".join(f.read().split("\n")[:2000]) + "\n", encoding="utf-8")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]))
    done = subprocess.run([sys.executable, "run.py", str(tmp_path / "sm"), str(vocab)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    reports = json.loads(done.stdout.strip().splitlines()[-1])
    ok, path, outputs = reports["toy"]
    assert ok and path == str(tmp_path / "sm" / "tiny" / "toy" / "1")
    assert set(outputs) == {"logits", "probabilities"}
    assert sorted(os.listdir(path)) == ["outputs.json", "text_config.json", "vocab.txt"]
    assert sorted(os.listdir(tmp_path / "sm" / "tiny")) == ["toy"]  # staging folder gone, nothing else written


@pytest.mark.slow
def test_the_export_tool_checks_its_task_flags_with_the_models_task(tmp_path, minilm_dir):
    """tools/export.py's --labels, --doc_stride, ... are one mapping of task options: a flag the model's
    task does not take is refused in one line naming it, before anything is written."""
    from tests.conftest import run_tool
    from tests.export.helpers import save_tiny_classifier

    model = save_tiny_classifier(tmp_path, minilm_dir)
    done = run_tool("export", model, "--vocab", tmp_path / "vocab.txt", "--base_dir", tmp_path / "sm",
                    "--formats", "onnx", "--max_answer_length", "5")
    assert done.returncode == 2, done.stderr[-2000:]
    error = done.stderr.strip().splitlines()[-1]
    assert "--max_answer_length 5" in error and "'classification'" in error
    assert not os.path.exists(tmp_path / "sm" / "sentiment" / "onnx")


def _run_toy(script, tmp_path):
    """`script` (in tmp_path) in a fresh process that sees the repository and the toy module; its last JSON line."""
    import json

    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]))
    done = subprocess.run([sys.executable, script, str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_toy_task_plugs_in_with_one_module_and_one_line(tmp_path, minilm_dir):
    """A task written to a temporary module (its Options, reader, head, evaluation, raw-text signature),
    registered in TASKS with one line, fine-tunes a step through finetune_task in a fresh process; another
    fresh process loads its model.keras, registers the task as a plugin would, and exports a SavedModel
    whose `parity` signature answers raw text as the Keras model does."""
    import json

    from tests.toy_task_sources import TOY_SERVE, TOY_TASK, TOY_TRAIN

    (tmp_path / "length_parity.py").write_text(TOY_TASK)
    (tmp_path / "train.py").write_text(TOY_TRAIN)
    (tmp_path / "serve.py").write_text(TOY_SERVE)
    texts = ["a fine film", "two words", "the ferry left late", "it rains", "one", "we walked home slowly",
             "good", "so very good"]
    (tmp_path / "train.csv").write_text("text\n" + "\n".join(texts) + "\n", encoding="utf-8")
    (tmp_path / "dev.csv").write_text("text\n" + "\n".join(texts[:4]) + "\n", encoding="utf-8")

    trained = _run_toy("train.py", tmp_path)
    assert trained["step"] == 2 and trained["task"] == "length_parity"  # 8 texts, batches of 4, one epoch
    assert trained["task_config"] == {"seq_length": 16, "text": "text"}
    assert 0.0 <= trained["metrics"]["accuracy"] <= 1.0
    with open(tmp_path / "run" / "metrics.json", encoding="utf-8") as f:
        assert set(json.load(f)) == {"accuracy"}

    served = _run_toy("serve.py", tmp_path)
    assert served["class"] == "BertTaskModel" and served["task"] == "length_parity"
    assert served["options"] == {"seq_length": 16, "text": "text"}
    assert "'length_parity' is not one of keras_bert's tasks" in served["refused"]  # the line is what plugs it in
    assert served["ok"] and served["path"] == str(tmp_path / "sm" / "parity" / "1")
    assert "parity" in served["rows"] and "serve_ids" in served["rows"]  # export checked the toy's signature
    assert "saved_model.pb" in served["files"]
    assert len(served["parity"]) == 4 and set(served["parity"]) <= {"odd", "even"}
    assert served["gap"] < 1e-4 and all(abs(total - 1) < 1e-5 for total in served["sums"])
