"""Prints tests/export/serving_ops_data.py: which TensorFlow and TensorFlow Text each TF Serving
release links, and the ops each linked TensorFlow Text registers, read from git clones.

    git clone https://github.com/tensorflow/serving; git clone https://github.com/tensorflow/text
    python tools/serving_op_sets.py --serving serving --text text > tests/export/serving_ops_data.py

Sources, per tag: `tensorflow_serving/workspace.bzl` (the `org_tensorflow_text` archive),
`WORKSPACE` (the `org_tensorflow` commit), `tensorflow_serving/model_servers/BUILD` (links
`@org_tensorflow_text//tensorflow_text:ops_lib`); in TF Text, `tensorflow_text/BUILD`'s `ops_lib`
deps -> their `py_tf_text_library(cc_op_defs=...)` files -> `REGISTER_OP("...")` and
`REGISTER_TF_OP_SHIM(...)` (whose op name is the `kOpName` of the kernel template's class).
Needs git only; of keras_bert it imports only the tools' one-line flag errors (`keras_bert.cli`).
"""

import os
import re
import subprocess
import sys

os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser  # noqa: E402  (one-line flag errors)

RELEASES = ("2.5.4", "2.6.5", "2.7.4", "2.8.4", "2.9.3", "2.10.1", "2.11.1", "2.12.0", "2.12.2",
            "2.13.1", "2.14.1", "2.15.1", "2.16.1", "2.17.1", "2.18.1", "2.19.0", "2.19.1", "2.20.0")


def show(repo, tag, path):
    proc = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], capture_output=True, text=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def server_pins(serving, tag):
    """(TF Text version, TF commit, links ops_lib) of a tensorflow/serving tag."""
    text = re.search(r"tensorflow/text/archive/v([\d.]+)\.zip", show(serving, tag, "tensorflow_serving/workspace.bzl"))
    tf_commit = re.search(r'git_commit\s*=\s*"([0-9a-f]{40})"', show(serving, tag, "WORKSPACE"))
    links = "@org_tensorflow_text//tensorflow_text:ops_lib" in show(
        serving, tag, "tensorflow_serving/model_servers/BUILD")
    return text.group(1), tf_commit.group(1), links


def _kernel_op_names(text_repo, tag, op_file_source):
    """`class Name` -> its `kOpName` in the kernel headers an op-def file includes (and theirs)."""
    names, seen = {}, set()
    pending = re.findall(r'#include "(tensorflow_text/core/kernels/[^"]+)"', op_file_source)
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        source = show(text_repo, tag, path) or ""
        pending += re.findall(r'#include "(tensorflow_text/core/kernels/[^"]+)"', source)
        for match in re.finditer(r"\nclass (\w+)[^{;]*\{(.*?)\n\};", source, re.S):
            op_name = re.search(r'kOpName\[\]\s*=\s*"([^"]+)"', match.group(2))
            if op_name:
                names[match.group(1)] = op_name.group(1)
        for match in re.finditer(r'(\w+)<\w+>::kOpName\[\]\s*=\s*"([^"]+)"', source):  # older: defined outside
            names[match.group(1)] = match.group(2)
    return names


def text_ops(text_repo, tag):
    """Sorted op names that `tensorflow_text:ops_lib` registers at `tag` (TF Serving links it)."""
    build = show(text_repo, tag, "tensorflow_text/BUILD")
    deps = re.search(r'name = "ops_lib",.*?deps = \[(.*?)\]', build, re.S).group(1)
    ops = set()
    for target in re.findall(r'":(\w+)_cc"', deps):
        rule = re.search(r'py_tf_text_library\(\s*name = "%s",(.*?)\n\)' % target, build, re.S)
        if rule is None:
            raise SystemExit(f"{tag}: no py_tf_text_library {target} in tensorflow_text/BUILD")
        defs = re.search(r"cc_op_defs = \[(.*?)\]", rule.group(1), re.S)
        for label in re.findall(r'"(?://tensorflow_text/core/ops:|core/ops/)([\w.]+)"', defs.group(1) if defs else ""):
            source = show(text_repo, tag, f"tensorflow_text/core/ops/{label}")
            ops |= set(re.findall(r'REGISTER_OP\("([^"]+)"\)', source))
            classes = _kernel_op_names(text_repo, tag, source)
            aliases = dict(re.findall(r"using (\w+)\s*=\s*(\w+)\s*<", source))
            for shim in re.findall(r"REGISTER_TF_OP_SHIM\((\w+)\)", source):
                kernel = aliases.get(shim, shim)
                op = classes.get(kernel[:-len("Kernel")] if kernel.endswith("Kernel") else kernel)
                if op is None:
                    raise SystemExit(f"{tag}: {label} registers {shim}, whose kOpName was not found")
                ops.add(op)
    return sorted(ops)


def main(argv=None):
    parser = ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serving", required=True, help="a git clone of tensorflow/serving (with tags)")
    parser.add_argument("--text", required=True, help="a git clone of tensorflow/text (with tags)")
    parser.add_argument("--releases", default=",".join(RELEASES), help="tensorflow/serving tags, comma-separated")
    args = parser.parse_args(argv)
    for flag, repo in (("--serving", args.serving), ("--text", args.text)):
        if subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"], capture_output=True, check=False).returncode:
            sys.exit(f"{flag} {repo}: not a git repository; pass a clone of tensorflow/{flag[2:]} with its tags.")
    missing = [tag for tag in args.releases.split(",") if show(args.serving, tag, "WORKSPACE") is None]
    if missing:
        sys.exit(f"--releases: tags {missing} are not in {args.serving} (git fetch --tags?).")
    pins = {tag: server_pins(args.serving, tag) for tag in args.releases.split(",")}
    texts = sorted({text for text, _, _ in pins.values()}, key=lambda v: tuple(map(int, v.split("."))))
    out = ['"""Generated by `python tools/serving_op_sets.py` (see its docstring for the sources)."""', "",
           "# tensorflow/serving tag: (TF Text it links (workspace.bzl), TF commit (WORKSPACE), links ops_lib)",
           "SERVER_PINS = {"]
    out += [f'    "{tag}": ("{text}", "{commit}", {links}),' for tag, (text, commit, links) in pins.items()]
    out += ["}", "", "# TF Text version: ops registered by tensorflow_text:ops_lib at tag v<version>",
            "TEXT_OPS = {"]
    for version in texts:
        ops = text_ops(args.text, f"v{version}")
        out.append(f'    "{version}": frozenset([')
        out += [f'        "{op}",' for op in ops]
        out.append("    ]),")
    out.append("}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
