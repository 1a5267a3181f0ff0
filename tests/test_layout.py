"""The package's shape: no upward import, no module shadowed by a name, every subpackage reachable."""

import ast
import importlib
import inspect
import os
import pkgutil
import subprocess
import sys

import keras_bert

PACKAGE = os.path.dirname(keras_bert.__file__)
# docs/DESIGN.md's dependency direction (its table of parts; tests/test_docs.py checks they agree), top to
# bottom: a part may import its own rank or lower. (export and tasks are one level: a task owns its serving,
# export asks the task.)
RANK = {"config": 0, "choices": 0, "errors": 0, "lazy": 0, "layers": 1, "text": 1, "models": 2, "data": 3,
        "checkpoints": 3, "training": 4, "tasks": 5, "export": 5, "cli": 6}


def _imports(path):
    """Every `keras_bert.<part>` a file imports, at module level or inside functions."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "keras_bert" and len(parts) > 1 and parts[1] in RANK:
                yield parts[1]


def test_no_part_imports_a_part_above_it():
    upward = []
    for folder, _, files in os.walk(PACKAGE):
        for file in files:
            if not file.endswith(".py"):
                continue
            path = os.path.join(folder, file)
            part = os.path.relpath(path, PACKAGE).split(os.sep)[0].removesuffix(".py")
            if part not in RANK:
                continue
            upward += [f"{os.path.relpath(path, PACKAGE)} imports keras_bert.{target}"
                       for target in set(_imports(path)) if RANK[target] > RANK[part]]
    assert not upward, upward


def test_no_module_is_shadowed_by_a_name_in_its_package():
    shadowed = []
    packages = ["keras_bert"] + [f"keras_bert.{m.name}" for m in pkgutil.iter_modules([PACKAGE]) if m.ispkg]
    for name in packages:
        package = importlib.import_module(name)
        for sub in pkgutil.iter_modules(package.__path__):
            value = getattr(package, sub.name, None)
            if value is not None and not inspect.ismodule(value):
                shadowed.append(f"{name}.{sub.name} is a {type(value).__name__}")
    assert not shadowed, shadowed


def test_every_subpackage_is_reachable_after_a_plain_import():
    code = ("import keras_bert; print(sorted(keras_bert.tasks.TASKS)[:1], keras_bert.training.RunConfig.__name__, "
            "keras_bert.text.TextConfig.__name__, keras_bert.checkpoints.load_checkpoint.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")).stdout
    assert out.split() == ["['classification']", "RunConfig", "TextConfig", "load_checkpoint"]
