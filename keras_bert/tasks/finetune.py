"""finetune_task: fine-tune a checkpoint on a task named in `TASKS`, then evaluate it."""

import os

from keras_bert.tasks.registry import TASKS


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
    from keras_bert.training.run_config import RunConfig

    # The arguments and the task's options: checked before Keras and TensorFlow load (a typo answered at once).
    check_sizes(seq_length=seq_length, batch_size=batch_size, epochs=epochs, learning_rate=learning_rate)
    run = run or RunConfig()
    run.check_batch_size(batch_size)
    task_class = TASKS.get(task) if isinstance(task, str) else task
    if task_class is None:
        raise ValueError(f"Unknown task {task!r}; expected one of {tuple(TASKS)}.")
    task_class.check_options(options, TASKS.values())
    chosen = task_class.make_options(seq_length, batch_size, run.seed, **options)  # once, before loading
    check_memory_early(checkpoint, chosen.seq_length or seq_length, batch_size, run.mixed_precision)
    from keras_bert.checkpoints import model_from_contents, read_checkpoint
    from keras_bert.tasks.metrics_file import write_metrics
    from keras_bert.training.finetuning import run_finetuning
    from keras_bert.training.folder_lock import exclusive_run_folder
    from keras_bert.training.memory_estimate import check_batch_memory
    from keras_bert.training.strategy import get_strategy, is_chief

    if run.strategy is None or isinstance(run.strategy, str):  # once: the chief and replicas are needed now
        run = run.replace(strategy=get_strategy(run.strategy or "auto"))
    check_min_batch(task_class, batch_size, run)
    # One run per folder: from the first read to metrics.json (run_finetuning holds it too).
    with exclusive_run_folder(run.output_dir if is_chief(run.strategy) else None):
        contents = read_checkpoint(checkpoint)  # once: the model is built from it in the strategy's scope
        longest = contents.config.max_sequence_length  # RoBERTa's 514 position rows: 512
        if chosen.seq_length and chosen.seq_length > longest:
            raise ValueError(f"seq_length={chosen.seq_length} exceeds the {longest} positions {contents.source} "
                             f"takes (max_position_embeddings={contents.config.max_position_embeddings}); use "
                             f"seq_length <= {longest}.")
        check_batch_memory(contents.config, batch_size, seq_length, mixed_precision=run.mixed_precision)
        runner = task_class.from_checkpoint(contents, options=chosen)
        runner.fit_options(train_file)  # the label vocabulary (SQuAD: v2), before reading and building
        train = runner.read(train_file, training=True)
        evaluation = runner.read(eval_file, training=False) if eval_file else None
        # What a resumed run must share with the interrupted one (run_config.json).
        identity = dict(runner.identity(), task=runner.name, checkpoint=os.path.abspath(os.fspath(checkpoint)),
                        train_file=os.path.abspath(os.fspath(train_file)))
        model, history = run_finetuning(
            lambda: runner.build_model(model_from_contents(contents, "encoder")), train,  # the head on its BERT
            eval_dataset=runner.validation_data(evaluation) if eval_every_epoch and evaluation is not None
            else None, identity=identity, epochs=epochs, learning_rate=learning_rate, run=run,
            **runner.compile_kwargs())
        metrics = runner.evaluate(model, evaluation, eval_file) if evaluation is not None else {}
        notes = {}
        if run.output_dir:
            notes = write_metrics(os.path.join(os.fspath(run.output_dir), "metrics.json"), metrics,
                                  runner.explain_metric)
    result = {"model": model, "history": history, "metrics": metrics, "notes": notes,
              "start_step": history.start_step, "step": int(model.optimizer.iterations.numpy())}
    if getattr(runner.options, "labels", None) is not None:
        result["labels"] = runner.labels
    return result


def check_sizes(**sizes):
    """Refuses, in one line, a size that is not a positive integer or a rate that is not a positive number."""
    import math
    import numbers

    for name, value in sizes.items():
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if name == "learning_rate":
            if not (number and math.isfinite(value) and value > 0):
                raise ValueError(f"learning_rate={value!r} (--learning_rate) must be a positive, finite number.")
        elif not (number and isinstance(value, numbers.Integral) and value >= 1):
            raise ValueError(f"{name}={value!r} (--{name}) must be a whole number >= 1.")


def check_memory_early(checkpoint, seq_length, batch_size, mixed_precision):
    """`check_batch_memory` before TensorFlow loads (7 s), where the checkpoint is a local keras_bert folder whose
    config is read as JSON, the length fits its positions (else the run's seq_length refusal comes first) and no
    GPU can be there (asking TensorFlow for one now would precede the strategy's start)."""
    from keras_bert.checkpoints.checkpoint_formats import local_config
    from keras_bert.training.memory_estimate import check_batch_memory, no_accelerator_node

    config = local_config(checkpoint) if no_accelerator_node() else None
    if config is not None and seq_length <= config.max_sequence_length:
        check_batch_memory(config, batch_size, seq_length, mixed_precision=mixed_precision)


def check_min_batch(task_class, batch_size, run):
    """Refuses a batch whose share per replica and micro-batch is below the task's least (embedding: 2 pairs)."""
    replicas, micro = run.strategy.num_replicas_in_sync, int(run.gradient_accumulation_steps)
    share = batch_size // (replicas * micro)
    if share >= task_class.MIN_BATCH_SIZE:
        return
    split = "".join(f" / {n} {what}" for n, what in ((replicas, "replicas"), (micro, "micro-batches")) if n > 1)
    least = task_class.MIN_BATCH_SIZE * replicas * micro
    raise ValueError(f"batch_size={batch_size} (--batch_size){split} gives {share} per loss; task "
                     f"{task_class.name!r} needs at least {task_class.MIN_BATCH_SIZE} "
                     f"{task_class.MIN_BATCH_REASON}. Pass --batch_size {least} or more.")
