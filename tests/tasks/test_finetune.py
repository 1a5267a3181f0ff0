"""finetune_task: the task names, and the option errors it raises before loading any checkpoint."""

import pytest

from keras_bert.tasks.finetune import TASKS, finetune_task


def test_every_task_is_registered_under_its_name():
    assert sorted(TASKS) == ["classification", "pair_classification", "squad", "token_classification"]
    assert all(task.name == name for name, task in TASKS.items())


@pytest.mark.parametrize("kwargs, message", [
    (dict(task="sentiment"), "Unknown task 'sentiment'; expected one of"),
    (dict(task="classification", text_b="hypothesis"),
     "text_b \\(--text_b hypothesis\\) is only read by task 'pair_classification', not 'classification'"),
    (dict(task="classification", batch_size=30, gradient_accumulation_steps=4),
     "batch_size=30 cannot be split into gradient_accumulation_steps=4 equal micro-batches"),
])
def test_bad_options_are_refused_with_the_flag(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        finetune_task(checkpoint=str(tmp_path / "none"), train_file="train.csv", **kwargs)
