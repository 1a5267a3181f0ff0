"""keras_bert.cli: the flag types' messages, argparse's one-line error, run_tool's exit statuses."""

import argparse
import os

import pytest

from keras_bert.cli import (
    ArgumentParser, add_run_flags, default_checkpoint, non_negative_float, non_negative_int, one_line,
    positive_float, positive_int, run_tool)


@pytest.mark.parametrize("kind, good, bad, expected", [
    (positive_int, ("1", 1), "0", "expected a positive integer, got '0'"),
    (non_negative_int, ("0", 0), "1.5", "expected an integer >= 0, got '1.5'"),
    (positive_float, ("2e-5", 2e-5), "inf", "expected a number > 0, got 'inf'"),
    (non_negative_float, ("0", 0.0), "-0.1", "expected a number >= 0, got '-0.1'"),
])
def test_flag_types_accept_and_refuse_with_the_value(kind, good, bad, expected):
    assert kind(good[0]) == good[1]
    with pytest.raises(argparse.ArgumentTypeError, match=expected):
        kind(bad)


def test_parser_error_is_one_line_and_hints_at_negative_values(capsys):
    parser = ArgumentParser(prog="tool.py")
    parser.add_argument("--learning_rate", type=float)
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--learning_rate", "-3e-5"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == ("tool.py: error: argument --learning_rate: expected one argument; "
                                       "for a negative value write --learning_rate=VALUE (see --help)\n")


def test_parser_from_a_docstring_has_its_first_line_as_description_and_the_rest_as_written():
    help_text = ArgumentParser(prog="tool.py", doc="Do a thing.\n\n    python tools/tool.py  # as written\n").format_help()
    assert help_text.index("Do a thing.") < help_text.index("options:") < help_text.index(
        "\n    python tools/tool.py  # as written")


def test_one_line_joins_lines_and_names_the_file():
    assert one_line(ValueError("bad\n   value\tgiven ")) == "bad value given"
    assert one_line(FileNotFoundError(2, "No such file or directory", "/x/vocab.txt")) == \
        "/x/vocab.txt: No such file or directory"
    assert one_line(KeyError()) == "KeyError"


def test_run_tool_exit_statuses(capfd):
    def main(argv):
        if argv == ["bad"]:
            raise ValueError("--flag 'bad': pass a good one.")
        if argv == ["stop"]:
            raise KeyboardInterrupt
        return 3 if argv else None

    assert run_tool(main, [], prog="t") == 0
    assert run_tool(main, ["x"], prog="t") == 3
    assert run_tool(main, ["bad"], prog="t") == 2
    assert run_tool(main, ["stop"], prog="t") == 130
    err = capfd.readouterr().err
    assert "t: error: --flag 'bad': pass a good one.\n" in err
    assert "t: interrupted; run the same command again to resume." in err


def test_resolve_file_flag_expands_globs_and_names_the_flag(tmp_path):
    from keras_bert.cli import UsageError, resolve_file_flag

    for name in ("b.txt", "a.txt"):
        (tmp_path / name).write_text("the king is dead .\n", encoding="utf-8")
    pattern = str(tmp_path / "*.txt")
    assert resolve_file_flag([pattern, str(tmp_path / "a.txt")], "--files") == [
        str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    with pytest.raises(UsageError, match=r"^--eval_files: .*'.*\*\.md' does not exist"):
        resolve_file_flag([str(tmp_path / "*.md")], "--eval_files")


def test_a_native_crash_in_a_tool_shows_its_stacks_on_the_real_stderr():
    """run_tool sends fd 2 through a pipe; with PYTHONFAULTHANDLER=1 a SIGSEGV's stacks must not die in it."""
    import os
    import subprocess
    import sys

    script = ("import ctypes\nfrom keras_bert.cli import run_tool\n"
              "def crash_in_native_code(argv):\n    ctypes.string_at(0)\n"
              "raise SystemExit(run_tool(crash_in_native_code, []))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONFAULTHANDLER="1", PYTHONPATH=root))
    assert result.returncode == -11
    assert "Fatal Python error: Segmentation fault" in result.stderr
    assert "in crash_in_native_code" in result.stderr


def test_default_checkpoint_is_the_shipped_minilm_folder():
    folder = default_checkpoint()
    assert os.path.isfile(os.path.join(folder, "config.json")) and os.path.isfile(os.path.join(folder, "vocab.txt"))


def test_run_flags_are_the_run_configs_and_refuse_bad_values(capsys):
    parser = ArgumentParser(prog="tool.py")
    add_run_flags(parser, "micro-batches")
    args = parser.parse_args(["--strategy", "cpu", "--gradient_accumulation_steps", "2", "--quiet"])
    assert (args.strategy, args.gradient_accumulation_steps, args.on_nonfinite, args.quiet, args.seed) == (
        "cpu", 2, "stop", True, 0)
    with pytest.raises(SystemExit):
        parser.parse_args(["--gradient_accumulation_steps", "0"])
    assert "--gradient_accumulation_steps" in capsys.readouterr().err


def test_quiet_native_stderr_drops_start_up_noise_and_passes_the_rest(capfd):
    """Written to file descriptor 2 as native code writes: TFLite's int8 calibration line (every tools/export.py
    TFLite run printed it) and TensorFlow's start-up lines go; anything else passes unchanged."""
    from keras_bert.cli import quiet_native_stderr

    with quiet_native_stderr():
        for line in ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.",
                     "I0000 00:00:1 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.",
                     "export.py: error: a real message"):
            os.write(2, (line + "\n").encode())
    assert capfd.readouterr().err == "export.py: error: a real message\n"


def test_run_tool_prints_a_warning_as_one_line_and_restores_the_process(capfd):
    """Issue 44 §5. Before: `path/tools/x.py:149: UserWarning: ...` and the source line. After: one line."""
    import warnings

    def main(argv):
        warnings.warn("the head is dropped;\n  use model.save", UserWarning)

    before = warnings.showwarning
    assert run_tool(main, [], prog="x.py") == 0
    assert warnings.showwarning is before  # the tool's own process only, while it runs
    assert capfd.readouterr().err == "x.py: warning: the head is dropped; use model.save\n"
