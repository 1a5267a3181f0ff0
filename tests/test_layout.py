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
# bottom: a part may import its own rank or lower. (export is above tasks: a task owns its serving, export
# asks the model's serving object.)
RANK = {"config": 0, "choices": 0, "errors": 0, "lazy": 0, "layers": 1, "text": 1, "models": 2, "data": 3,
        "checkpoints": 3, "training": 4, "tasks": 5, "export": 6, "cli": 7}
# Import circles (function-level imports included) left to remove, each a sorted tuple of modules.
# Both are inside text/ (a vocabulary build normalizes; a text contract and its tokenizer make each other, through
# its kind's record, which also learns a byte-level BPE, whose learner returns a contract).
KNOWN_CIRCLES = {("keras_bert.text.normalization", "keras_bert.text.vocab"),
                 ("keras_bert.text.byte_bpe_learner", "keras_bert.text.text_config", "keras_bert.text.tokenizer",
                  "keras_bert.text.tokenizer_kinds")}


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


def _module_imports(path, modules):
    """The keras_bert modules (of `modules`) a file imports, at module level or inside functions."""
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]  # a name or a submodule
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            while name and name not in modules:  # `from pkg.mod import fn` -> pkg.mod
                name = name.rpartition(".")[0]
            if name:
                yield name


def import_circles(root):
    """Sorted tuples of the keras_bert modules under `root` that import each other (strongly connected)."""
    modules = {}
    for folder, _, files in os.walk(os.path.join(root, "keras_bert")):
        for file in files:
            if file.endswith(".py"):
                name = os.path.relpath(os.path.join(folder, file), root)[:-3].replace(os.sep, ".")
                modules[name.removesuffix(".__init__")] = os.path.join(folder, file)
    edges = {name: set(_module_imports(path, modules)) - {name} for name, path in modules.items()}
    reach = {}
    for start in edges:  # modules reachable from each (a few hundred modules: a walk each is fine)
        seen, todo = set(), list(edges[start])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += edges[name]
        reach[start] = seen
    return {tuple(sorted(n for n in edges if n == m or (n in reach[m] and m in reach[n]))) for m in edges} - {
        (m,) for m in edges}


def test_no_import_circle_between_modules():
    assert import_circles(os.path.dirname(PACKAGE)) - KNOWN_CIRCLES == set()


def test_the_circle_checker_finds_a_function_level_circle(tmp_path):
    package = tmp_path / "keras_bert"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from keras_bert.b import g\n")
    (package / "b.py").write_text("def g():\n    from keras_bert import a\n")
    (package / "c.py").write_text("import keras_bert.a\n")
    assert import_circles(tmp_path) == {("keras_bert.a", "keras_bert.b")}


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


def test_no_file_of_the_package_or_the_tools_is_over_300_lines():
    """A file over 300 lines mixes jobs (docs/DESIGN.md): split it by job."""
    root = os.path.dirname(PACKAGE)
    long = []
    for folder in (PACKAGE, os.path.join(root, "tools")):
        for directory, _, files in os.walk(folder):
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(directory, name), encoding="utf-8") as f:
                        count = sum(1 for _ in f)
                    if count > 300:
                        long.append(f"{os.path.relpath(os.path.join(directory, name), root)} ({count} lines)")
    assert not long, long


def missing_mirror_tests(root):
    """Modules of `root`/keras_bert (not `__init__.py`) with no mirror test file: keras_bert/<part>/<module>.py
    is tested in tests/<part>/test_<module>.py (a top-level module in tests/test_<module>.py)."""
    package = os.path.join(root, "keras_bert")
    missing = []
    for directory, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py") and name != "__init__.py":
                part = os.path.relpath(directory, package)
                test = os.path.normpath(os.path.join(root, "tests", part, f"test_{name}"))
                if not os.path.isfile(test):
                    missing.append(os.path.relpath(os.path.join(directory, name), package))
    return sorted(missing)


def test_every_module_has_its_mirror_test_file():
    """Issue 28 §6: tests/ mirrors keras_bert/ file for file, so a module's tests are found by its name."""
    assert missing_mirror_tests(os.path.dirname(PACKAGE)) == []


def test_the_mirror_check_names_a_module_without_its_test_file(tmp_path):
    for path in ("keras_bert/__init__.py", "keras_bert/lazy.py", "keras_bert/models/__init__.py",
                 "keras_bert/models/heads.py", "keras_bert/models/span_head.py", "tests/test_lazy.py",
                 "tests/models/test_heads.py", "tests/test_span_head.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    assert missing_mirror_tests(tmp_path) == [os.path.join("models", "span_head.py")]
