"""`tools/benchmark.py NAME --record`: a benchmark's section of docs/BENCHMARKS.md rewritten from a real run.

The run's printed output is kept as it comes (and still shown); when it ends without an error, the
part of the file between `<!-- recorded: NAME -->` and `<!-- end recorded: NAME -->` becomes one
table row (date, machine, load before and after, the command, seconds) and the output. Everything
outside the markers (the hand-written notes) stays; a benchmark without a section gets one at the
end of the file. A failed run leaves the file as it was.
"""

import contextlib
import datetime
import os
import platform
import re
import shlex
import sys
import time

from keras_bert.cli import UsageError

DEFAULT_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "BENCHMARKS.md")
HEADER = ("| date (UTC) | machine | load average (1 min): before -> after | command | seconds |\n"
          "|---|---|---|---|---|\n")


def split_flags(argv):
    """`argv` without `--record` / `--record_file FILE`, and the file to record into (None: no record)."""
    rest, record, path = [], False, None
    argv = list(argv)
    while argv:
        arg = argv.pop(0)
        if arg == "--record":
            record = True
        elif arg == "--record_file" or arg.startswith("--record_file="):
            if "=" in arg:
                path = arg.split("=", 1)[1]
            elif argv:
                path = argv.pop(0)
            else:
                raise UsageError("--record_file needs a file: the BENCHMARKS.md to rewrite")
        else:
            rest.append(arg)
    if path is not None and not record:
        raise UsageError(f"--record_file {path} is only read with --record: add --record or drop it")
    if record:
        path = path or DEFAULT_FILE
        if not os.path.isfile(path):
            raise UsageError(f"--record_file {path} does not exist: give the BENCHMARKS.md to rewrite "
                             f"(docs/BENCHMARKS.md in the repository)")
    return rest, (path if record else None)


def machine():
    """`CPU model, N cores (system machine)`, from /proc/cpuinfo where there is one."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            found = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        model = found.group(1).strip() if found else model
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores ({platform.system()} {platform.machine()})"


class _Tee:
    """A text stream that writes to `stream` and keeps a copy."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def run_and_record(name, argv, path, run, section=None):
    """Runs `run(argv)` with its output shown and kept, then rewrites `section`'s (default: `name`'s) part of `path`."""
    load_before, start = os.getloadavg()[0], time.time()
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        result = run(argv)
    if isinstance(result, int) and not isinstance(result, bool) and result != 0:
        return result  # the benchmark failed: nothing to record
    seconds = time.time() - start
    command = shlex.join(["python", "tools/benchmark.py", name, *argv])
    row = (f"| {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} | {machine()} | "
           f"{load_before:.2f} -> {os.getloadavg()[0]:.2f} | `{command}` | {seconds:.0f} |\n")
    output = "".join(tee.parts).rstrip("\n").replace("```", "'''")
    body = f"{HEADER}{row}\nOutput:\n\n```text\n{output}\n```\n"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(rewrite_section(text, section or name, body))
    print(f"recorded in {path} (section {section or name})")
    return result


def rewrite_section(text, name, body):
    """`text` with the part between `name`'s markers replaced by `body` (a new section at the end
    when there are no markers)."""
    begin, end = f"<!-- recorded: {name} -->\n", f"<!-- end recorded: {name} -->\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        return pattern.sub(lambda _: begin + body + end, text, count=1)
    return f"{text.rstrip()}\n\n## {name}\n\n{begin}{body}{end}"
