"""The plan lives in the repository: docs/DESIGN.md is the table tests/test_layout.py enforces, what the
code cites of it exists, the docs' links resolve, and nothing refers to a path outside the repository."""

import os
import re

from tests.conftest import ROOT

DESIGN = os.path.join(ROOT, "docs", "DESIGN.md")
# Text files of the repository that may cite a path (code, docs, configuration, CI).
TEXT_ENDINGS = (".py", ".md", ".cfg", ".toml", ".ini", ".sh", ".yml", ".yaml", ".config", ".txt")
SKIPPED_DIRS = {".venv", ".git", "__pycache__", "runs", "build", "dist"}


def repository_text_files():
    """Relative paths of the repository's text files (exports under savedmodels/<name>/ skipped)."""
    for folder, dirs, files in os.walk(ROOT):
        relative = os.path.relpath(folder, ROOT)
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                   and not (relative == "savedmodels")]
        for file in files:
            if file.endswith(TEXT_ENDINGS) or relative == ".ci":
                yield os.path.normpath(os.path.join(relative, file))


def read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8", errors="replace") as f:
        return f.read()


def design_section(title):
    """The text of DESIGN.md's `## title...` section."""
    text = read(DESIGN)
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_design_rank_table_is_the_one_test_layout_enforces():
    from tests.test_layout import RANK

    rows = re.findall(r"^\| (\w+) \| (\d+) \|", design_section("Parts and their dependency direction"), re.M)
    assert {part: int(rank) for part, rank in rows} == RANK, (
        "docs/DESIGN.md's table of parts and tests/test_layout.py's RANK differ: change both together")


def test_what_the_code_cites_of_design_md_is_in_it():
    principles = re.findall(r"^(\d+)\. \*\*", design_section("Principles"), re.M)
    rules = re.findall(r"^(\d+)\. ", design_section("Rules"), re.M)
    assert "\n## Known traps" in read(DESIGN)
    cited = []
    for relative in repository_text_files():
        text = " ".join(read(relative).split())  # a citation may wrap over lines
        for kind, number in re.findall(r"docs/DESIGN\.md,? (rule|principle) (\d+)", text):
            assert number in (rules if kind == "rule" else principles), f"{relative} cites {kind} {number}"
            cited.append(relative)
        if relative.startswith("docs" + os.sep) or relative == os.path.join("tests", "test_docs.py"):
            continue  # the guides link to it by its relative name; this file names it in code
        assert not re.search(r"(?<![\w/])DESIGN(?:\.md)?\b", text), f"{relative} cites DESIGN without its path"
    assert cited, "no code cites docs/DESIGN.md's principles or rules: is the pattern still right?"


def test_nothing_refers_to_a_path_outside_the_repository():
    outside = ("shared" + "/DESIGN", "/work" + "/", "../" + "shared")
    found = []
    for relative in repository_text_files():
        text = read(relative)
        found += [f"{relative}: {word}" for word in outside if word in text]
        # A relative path that climbs out of the repository from the file's folder.
        for match in re.finditer(r"(?<![\w.])((?:\.\./)+)[\w.-]+", text):
            target = os.path.normpath(os.path.join(ROOT, os.path.dirname(relative), match.group(1)))
            if os.path.relpath(target, ROOT).startswith(".."):
                found.append(f"{relative}: {match.group(0)}")
    assert not found, found


def _anchor(heading):
    """GitHub's anchor of a markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_in_the_docs_resolves():
    documents = ["README.md"] + [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs")))
                                 if f.endswith(".md")]
    broken = []
    for document in documents:
        for target in re.findall(r"\]\(([^)\s]+)\)", read(document)):
            if re.match(r"\w+://", target):
                continue
            path, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(document), path)) if path else document
            if not os.path.exists(os.path.join(ROOT, linked)):
                broken.append(f"{document}: {target} (no such file)")
            elif anchor and anchor not in {_anchor(h) for h in re.findall(r"^#+ (.+)$", read(linked), re.M)}:
                broken.append(f"{document}: {target} (no such heading)")
    assert not broken, broken


def test_docstrings_carry_no_dated_timings():
    """Measurements live in docs/BENCHMARKS.md with their date, machine and load."""
    dated = []
    for relative in repository_text_files():
        if relative.endswith(".py") and relative.split(os.sep)[0] in ("keras_bert", "tools"):
            text = read(relative)
            dated += [f"{relative}: {m.group(0)}" for m in re.finditer(r"\b20\d\d-[01]\d-[0-3]\d\b", text)]
            if relative.startswith("keras_bert"):
                dated += [f"{relative}: {m.group(0)}" for m in re.finditer(r"[\d.]+ (?:seq|texts|sentences)/s", text)]
    assert not dated, f"move these to docs/BENCHMARKS.md: {dated}"


def test_readme_test_command_is_the_one_ci_runs():
    readme = [line for line in read("README.md").splitlines() if "python -m pytest" in line]
    assert len(readme) == 1 and readme[0] in read(os.path.join(".ci", "run")).splitlines(), readme
