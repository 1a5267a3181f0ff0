"""finetune_task: the task names, and the option errors it raises before loading any checkpoint."""

import dataclasses

import pytest

from keras_bert.tasks.finetune import finetune_task
from keras_bert.tasks.registry import TASKS
from keras_bert.training.run_config import RunConfig


def test_every_task_is_registered_under_its_name():
    assert {"classification", "pair_classification", "squad", "token_classification"} <= set(TASKS)
    assert all(task.name == name for name, task in TASKS.items())


def test_each_task_declares_its_own_options():
    assert list(TASKS["classification"].options()) == ["text_a", "label", "labels", "padding", "doc_stride",
                                                       "aggregate"]
    assert list(TASKS["pair_classification"].options()) == ["text_b", "text_a", "label", "labels", "padding",
                                                            "doc_stride", "aggregate"]
    assert list(TASKS["squad"].options()) == ["doc_stride", "max_query_length", "max_answer_length",
                                              "version_2_with_negative"]
    assert all(help_text for task in TASKS.values() for _, _, help_text in task.options().values())


@pytest.mark.parametrize("kwargs, message", [
    (dict(task="sentiment"), "Unknown task 'sentiment'; expected one of"),
    (dict(task="classification", text_b="hypothesis"),
     "Option text_b \\(--text_b hypothesis\\) does not apply to task 'classification'; it is an option "
     "of pair_classification"),
    (dict(task="classification", max_query_length=16),
     "Option max_query_length \\(--max_query_length 16\\) does not apply"),
    (dict(task="pair_classification"), "needs text_b \\(--text_b"),
    (dict(task="squad", doc_stride=0), "doc_stride=0 \\(--doc_stride\\) must be a positive"),
    (dict(task="classification", batch_size=30, run=RunConfig(gradient_accumulation_steps=4)),
     "batch_size=30 cannot be split into gradient_accumulation_steps=4 equal micro-batches"),
])
def test_bad_options_are_refused_with_the_flag(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        finetune_task(checkpoint=str(tmp_path / "none"), train_file="train.csv", **kwargs)


class _Counted(TASKS["classification"].Options):
    made = []

    def check(self):
        super().check()
        self.made.append(self)


class _CountedTask(TASKS["classification"]):
    """Classification whose Options count how often they are made; it stops the run where the file is read."""

    Options = _Counted

    def fit_options(self, path):
        raise RuntimeError(f"stopped: {len(_Counted.made)} Options made")


def test_finetune_task_makes_the_options_once(minilm_dir, tmp_path):
    from tests.tasks.fresh_process import tiny_checkpoint

    _Counted.made.clear()
    checkpoint = tiny_checkpoint(minilm_dir, tmp_path / "ckpt")
    with pytest.raises(RuntimeError, match="stopped: 1 Options made"):
        finetune_task(_CountedTask, checkpoint, "train.csv", seq_length=16, batch_size=2, labels=["neg", "pos"])


def test_from_checkpoint_keeps_options_made_before_and_fills_what_the_checkpoint_decides(minilm_dir):
    from keras_bert.checkpoints import read_checkpoint

    contents = read_checkpoint(minilm_dir)
    made = TASKS["classification"].make_options(64, 8, labels=["neg", "pos"])
    assert TASKS["classification"].from_checkpoint(contents, options=made).options is made
    embedding = TASKS["embedding"]
    task = embedding.from_checkpoint(contents, options=embedding.make_options(64, normalize=False))
    assert (task.pooling, task.normalize, task.seq_length) == ("mean", False, 64)  # pooling: the checkpoint's
    without_vocab = dataclasses.replace(contents, text_config=None)
    with pytest.raises(ValueError, match=r"^Hugging Face checkpoint .* has no vocab.txt next to it; fine-tuning"):
        embedding.from_checkpoint(without_vocab, 64)
