"""checkpoints/ asks the head classes; it names no task and keys no table by one."""

import os
import re

import keras_bert.checkpoints
from keras_bert.choices import CHECKPOINT_MODELS
from keras_bert.tasks import TASKS


def test_no_task_name_in_checkpoints():
    """Before heads were classes: 11 branches on a task's name and 3 task-keyed tables."""
    folder = os.path.dirname(keras_bert.checkpoints.__file__)
    names = "|".join(re.escape(name) for name in TASKS if name not in CHECKPOINT_MODELS)  # load_checkpoint(model=)
    found = []
    for file in sorted(os.listdir(folder)):
        if file.endswith(".py"):
            text = open(os.path.join(folder, file), encoding="utf-8").read()
            found += [f"{file}: {m.group(0)}" for m in re.finditer(rf"[\"']({names})[\"']", text)]
    assert found == []
