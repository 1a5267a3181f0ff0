"""tools/serving_op_sets.py reads the pins and op registrations from git tags (a small repository
pair laid out as tensorflow/serving and tensorflow/text are), and refuses a bad clone in one line."""

import subprocess

from tests.conftest import run_tool

TEXT_FILES = {
    "tensorflow_text/BUILD": '''
cc_library(
    name = "ops_lib",
    deps = [
        ":normalize_ops_cc",
        ":fast_wordpiece_tokenizer_cc",
    ],
)
py_tf_text_library(
    name = "normalize_ops",
    cc_op_defs = ["core/ops/normalize_ops.cc"],
)
py_tf_text_library(
    name = "fast_wordpiece_tokenizer",
    cc_op_defs = ["//tensorflow_text/core/ops:fast_wordpiece_tokenizer_op.cc"],
)
py_tf_text_library(
    name = "trimmer_ops",
    cc_op_defs = ["//tensorflow_text/core/ops:trimmer_ops.cc"],
)
''',
    "tensorflow_text/core/ops/normalize_ops.cc": 'REGISTER_OP("CaseFoldUTF8")\nREGISTER_OP("NormalizeUTF8")\n',
    "tensorflow_text/core/ops/fast_wordpiece_tokenizer_op.cc":
        '#include "tensorflow_text/core/kernels/fast_wordpiece_kernel.h"\n'
        "REGISTER_TF_OP_SHIM(FastWordpieceTokenizeWithOffsetsOpKernel);\n",
    "tensorflow_text/core/kernels/fast_wordpiece_kernel.h":
        '#include "tensorflow_text/core/kernels/fast_wordpiece_kernel_template.h"\n',
    "tensorflow_text/core/kernels/fast_wordpiece_kernel_template.h":
        '\nclass FastWordpieceTokenizeWithOffsetsOp : public Base {\n'
        '  static constexpr char kOpName[] = "FastWordpieceTokenizeWithOffsets";\n};\n',
    "tensorflow_text/core/ops/trimmer_ops.cc": 'REGISTER_OP("TFText>RoundRobinTrim")\n',  # not in ops_lib
}
SERVING_FILES = {
    "tensorflow_serving/workspace.bzl": 'url = "https://github.com/tensorflow/text/archive/v2.12.1.zip",\n',
    "WORKSPACE": '    git_commit = "' + "ab" * 20 + '",\n',
    "tensorflow_serving/model_servers/BUILD": '"@org_tensorflow_text//tensorflow_text:ops_lib",\n',
}


def git_repo(path, files, tag):
    for name, content in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(content, encoding="utf-8")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                 ["tag", tag]):
        subprocess.run(["git", "-C", str(path), *args], check=True)
    return str(path)


def test_reads_pins_and_linked_ops_from_tags(tmp_path):
    serving = git_repo(tmp_path / "serving", SERVING_FILES, "2.19.1")
    text = git_repo(tmp_path / "text", TEXT_FILES, "v2.12.1")
    proc = run_tool("serving_op_sets", "--serving", serving, "--text", text, "--releases", "2.19.1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = {}
    exec(proc.stdout, data)  # pylint: disable=exec-used
    assert data["SERVER_PINS"] == {"2.19.1": ("2.12.1", "ab" * 20, True)}
    assert data["TEXT_OPS"] == {"2.12.1": {"CaseFoldUTF8", "NormalizeUTF8", "FastWordpieceTokenizeWithOffsets"}}


def test_refuses_a_folder_that_is_not_a_clone_and_a_missing_tag(tmp_path):
    serving = git_repo(tmp_path / "serving", SERVING_FILES, "2.19.1")
    proc = run_tool("serving_op_sets", "--serving", str(tmp_path), "--text", serving)
    assert proc.returncode != 0 and proc.stderr.strip().splitlines()[-1].startswith("--serving ")
    assert "not a git repository" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_tool("serving_op_sets", "--serving", serving, "--text", serving, "--releases", "2.99.0")
    assert proc.returncode != 0 and "--releases: tags ['2.99.0'] are not in" in proc.stderr
