"""The user-facing error types and the one check for output folders (imports no TensorFlow)."""

import os


class UsageError(ValueError):
    """Bad input from the user: the message names the flag, file or value and what to do.

    Tools print it as one line (no traceback) and exit with status 2 (`keras_bert.cli.run_tool`).
    """


class ConversionError(RuntimeError):
    """A format's converter cannot convert this model (TFLite, tf2onnx); the message names the op.
    `export_model` reports it as that format's failed row and goes on with the other formats."""


def make_dir(path, what="output_dir"):
    """Creates folder `path` (and parents) and returns it; a file in its place is refused.

    Args:
        path: the folder.
        what: the flag or argument that named it, for the message (e.g. "--output_dir").

    Example:
        >>> make_dir("runs/tiny", "--output_dir")
        'runs/tiny'
    """
    path = check_dir(path, what)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{what} {path!r}: cannot create it ({error.strerror}); pass another folder.") from None
    return path


def check_dir(path, what="output_dir"):
    """`make_dir`'s refusals without creating anything (a tool checks its output folder before its slow work and
    makes it only once its input has been read); returns `path`."""
    path = os.fspath(path)
    prefix = ""
    for part in path.split(os.sep):
        prefix = os.path.join(prefix, part) if prefix else (part or os.sep)
        if os.path.islink(prefix) and not os.path.exists(prefix):
            raise UsageError(f"{what} {path!r}: {prefix!r} is a symlink that leads nowhere (a symlink loop or a "
                             "missing target); pass a real folder.")
    blocker = path
    while blocker and not os.path.exists(blocker):
        blocker = os.path.dirname(blocker)
    if blocker and not os.path.isdir(blocker):
        raise UsageError(f"{what} {path!r}: {blocker!r} is a file, not a folder; pass a folder path.")
    return path
