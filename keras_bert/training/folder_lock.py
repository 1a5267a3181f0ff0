"""One run per run folder: an exclusive lock (`flock`) that the holder's exit, or death, releases."""

import contextlib
import fcntl  # POSIX only, as tensorflow-text is
import os
import socket
import sys
import threading
import time

from keras_bert.errors import UsageError, make_dir

LOCK_FILE = "run.lock"
_held = {}  # real path of a folder this process holds -> the id of the thread holding it
_held_guard = threading.Lock()


@contextlib.contextmanager
def exclusive_run_folder(path, flag="--output_dir"):
    """Holds run folder `path` for this run: a second run into it, in any process, is refused.

    Two runs started together into one folder both trained, then wrote `model.partial.keras`
    and renamed it: the folder held one run's model beside the other's `run_config.json`, or a
    corrupt zip. The lock is `flock` on `path/run.lock`: the kernel releases it when the holder
    exits or is killed, so a killed run never blocks the next (resume after a crash needs no
    clean-up); the file names the holder (pid, host, start time, command) for the message and
    is removed on release. The same thread may enter again (`finetune_task` holds the folder
    around `run_finetuning`, which holds it too); another thread of this process is refused.

    Args:
        path: the run folder (created if needed), or None: nothing to hold.
        flag: the option that named it, for the message.

    Example:
        >>> with exclusive_run_folder("runs/sst2"):
        ...     train()  # a second process entering "runs/sst2" now gets a one-line UsageError
    """
    if path is None:
        yield
        return
    path = make_dir(os.fspath(path), flag)
    key = os.path.realpath(path)
    with _held_guard:
        holder = _held.get(key)
        if holder not in (None, threading.get_ident()):
            raise UsageError(f"{flag} {path!r} is in use by another run in this process (another thread); "
                             f"wait for it to finish, or pass another {flag}.")
    if holder is not None:  # re-entered by the holder, whose own exit releases the folder
        yield
        return
    fd, lock_path = _acquire(path, flag)
    with _held_guard:
        _held[key] = threading.get_ident()
    try:
        yield
    finally:
        with _held_guard:
            del _held[key]
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock_path)  # while still locked: a waiter that opened it re-opens the new file
        os.close(fd)


def _acquire(path, flag):
    lock_path = os.path.join(path, LOCK_FILE)
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = os.pread(fd, 400, 0).decode("utf-8", "replace").strip().splitlines()
            except OSError:
                holder = []
            os.close(fd)
            holder = holder[0] if holder else "a process that is starting"
            raise UsageError(f"{flag} {path!r} is in use by another run ({holder}): two runs in one folder "
                             f"would mix their checkpoints and model; wait for it to finish, or pass another "
                             f"{flag}.") from None
        with contextlib.suppress(FileNotFoundError):
            if os.stat(lock_path).st_ino == os.fstat(fd).st_ino:
                break
        os.close(fd)  # the holder removed the file as we opened it: lock the new one
    command = " ".join(sys.argv)[:200].replace("\n", " ")
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since "
                 f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}: {command}\n".encode())
    return fd, lock_path
