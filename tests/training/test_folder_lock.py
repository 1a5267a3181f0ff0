"""training/folder_lock.py: one run per folder; the holder may enter again, another thread may not."""

import os
import subprocess
import sys
import threading

import pytest

from keras_bert.errors import UsageError
from keras_bert.training.folder_lock import LOCK_FILE, exclusive_run_folder

# Another process that holds the folder until its stdin closes.
HOLDER = ("import sys; from keras_bert.training.folder_lock import exclusive_run_folder\n"
          "with exclusive_run_folder(sys.argv[1]):\n    print('held', flush=True); sys.stdin.read()\n")


def test_another_thread_cannot_enter_a_held_folder_but_the_holder_can(tmp_path):
    errors = []

    def other_thread():
        try:
            with exclusive_run_folder(str(tmp_path)):
                pass
        except UsageError as error:
            errors.append(str(error))

    with exclusive_run_folder(str(tmp_path)):
        with exclusive_run_folder(str(tmp_path)):  # finetune_task -> run_finetuning
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
    assert len(errors) == 1 and "in use by another run in this process" in errors[0]
    with exclusive_run_folder(str(tmp_path)):  # released: free again
        pass


def test_a_folder_held_by_another_process_is_refused_naming_its_pid(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(UsageError, match=f"--output_dir .* is in use by another run \\(pid {holder.pid} "):
            with exclusive_run_folder(str(tmp_path)):
                pass
    finally:
        holder.communicate("", timeout=60)
    with exclusive_run_folder(str(tmp_path)):  # the holder exited: free again
        assert f"pid {os.getpid()}" in (tmp_path / LOCK_FILE).read_text(encoding="utf-8")
    assert not (tmp_path / LOCK_FILE).exists()  # removed on release


def test_a_lock_file_left_by_a_killed_run_blocks_nothing(tmp_path):
    (tmp_path / LOCK_FILE).write_text("pid 999999 on gone, since yesterday: a killed run\n", encoding="utf-8")
    with exclusive_run_folder(str(tmp_path / ".")):
        pass
    assert not (tmp_path / LOCK_FILE).exists()
