"""finetune_task: fine-tune a checkpoint on a task named in `TASKS`, then evaluate it."""

import os

from keras_bert.tasks.classification import ClassificationTask
from keras_bert.tasks.embedding import EmbeddingTask
from keras_bert.tasks.multi_label import MultiLabelTask
from keras_bert.tasks.multiple_choice import MultipleChoiceTask
from keras_bert.tasks.pair_classification import PairClassificationTask
from keras_bert.tasks.regression import RegressionTask
from keras_bert.tasks.squad import SquadTask
from keras_bert.tasks.token_classification import TokenClassificationTask

TASKS = {task.name: task for task in (ClassificationTask, PairClassificationTask,
                                      TokenClassificationTask, SquadTask,
                                      RegressionTask, MultiLabelTask, EmbeddingTask, MultipleChoiceTask)}


def finetune_task(task, checkpoint, train_file, eval_file=None, *, seq_length=128, batch_size=32,
                  epochs=3, learning_rate=3e-5, eval_every_epoch=False, run=None, **options):
    """Fine-tunes a checkpoint on one of the standard tasks and evaluates it; resumable.

    With `run.output_dir`, an interrupted run continues from its last checkpoint when called
    again with the same arguments, and a finished one is evaluated, not trained again
    (see `run_finetuning`). The trained `model.keras` carries its text contract, task and
    options (labels, serving options): any tool can use it alone.

    Args:
        task: a name in `TASKS` or a `Task` subclass.
        checkpoint: any checkpoint `keras_bert.load_checkpoint` reads; its text contract is used.
        train_file, eval_file: data files.
        seq_length, batch_size, epochs, learning_rate: as usual.
        eval_every_epoch: also evaluate `eval_file` after every epoch (`val_*` in the history);
            by default it is evaluated once, at the end.
        run: a `keras_bert.training.RunConfig` (output dir, strategy, precision, XLA, seed,
            gradient accumulation, checkpoints, verbosity).
        **options: the task's own options (`TASKS[task].options()`, e.g. classification's
            `text_a`, `label`, `labels`, `padding`, `doc_stride`; SQuAD's `max_query_length`); one it does not
            take is refused.

    Returns:
        dict: `model`, `history`, `start_step` (where training started: 0, a resumed
        step, or the total for a finished run), `step` (the optimizer step at the end),
        `metrics` on `eval_file` (the task's; empty without `eval_file`) and `labels` where
        the task has them.

    Example:
        >>> result = finetune_task("classification", "minilm/", "train.csv", "dev.csv",
        ...                        labels=["neg", "pos"], epochs=2)
        >>> result["metrics"]["accuracy"]
    """
    from keras_bert.checkpoints import model_from_contents, read_checkpoint
    from keras_bert.training.finetuning import run_finetuning
    from keras_bert.training.memory_estimate import check_batch_memory
    from keras_bert.training.run_config import RunConfig

    run = run or RunConfig()
    run.check_batch_size(batch_size)
    task_class = TASKS.get(task) if isinstance(task, str) else task
    if task_class is None:
        raise ValueError(f"Unknown task {task!r}; expected one of {tuple(TASKS)}.")
    task_class.check_options(options, TASKS.values())
    runner = task_class(None, seq_length, batch_size, run.seed, **options)
    contents = read_checkpoint(checkpoint)  # once: the model is built from it in the strategy's scope
    check_batch_memory(contents.config, batch_size, seq_length, mixed_precision=run.mixed_precision)
    if contents.text_config is None:
        raise ValueError(f"{checkpoint} has no vocab.txt next to it; fine-tuning needs the "
                         "checkpoint's own vocabulary.")
    runner.use_checkpoint(contents)  # the tokenizer; after the task has checked its options
    train = runner.read(train_file, training=True)
    evaluation = runner.read(eval_file, training=False) if eval_file else None
    # What a resumed run must share with the interrupted one (run_config.json).
    identity = dict(runner.identity(), task=runner.name, checkpoint=os.path.abspath(os.fspath(checkpoint)),
                    train_file=os.path.abspath(os.fspath(train_file)))
    model, history = run_finetuning(
        lambda: runner.build_model(model_from_contents(contents, "encoder")), train,  # the head goes on its BERT
        eval_dataset=runner.validation_data(evaluation) if eval_every_epoch and evaluation is not None
        else None, identity=identity, epochs=epochs, learning_rate=learning_rate, run=run,
        **runner.compile_kwargs())
    metrics = runner.evaluate(model, evaluation, eval_file) if evaluation is not None else {}
    result = {"model": model, "history": history, "metrics": metrics,
              "start_step": history.start_step, "step": int(model.optimizer.iterations.numpy())}
    if getattr(runner, "labels", None) is not None:
        result["labels"] = runner.labels
    return result
