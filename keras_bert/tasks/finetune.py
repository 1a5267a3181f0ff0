"""finetune_task: fine-tune a checkpoint on a task named in `TASKS`, then evaluate it."""

import os

from keras_bert.tasks.classification import ClassificationTask
from keras_bert.tasks.pair_classification import PairClassificationTask
from keras_bert.tasks.squad import SquadTask
from keras_bert.tasks.token_classification import TokenClassificationTask

TASKS = {task.name: task for task in (ClassificationTask, PairClassificationTask,
                                      TokenClassificationTask, SquadTask)}


def finetune_task(task, checkpoint, train_file, eval_file=None, *, text_a="sentence", text_b=None,
                  label="label", labels=None, seq_length=128, batch_size=32, epochs=3,
                  learning_rate=3e-5, doc_stride=128, max_query_length=64, output_dir=None,
                  checkpoint_every_steps=500, keep_checkpoints=2, strategy=None,
                  mixed_precision="off", jit_compile="auto", seed=0,
                  gradient_accumulation_steps=1, padding="dynamic", eval_every_epoch=False, verbose=1):
    """Fine-tunes a checkpoint on one of the standard tasks and evaluates it; resumable.

    With `output_dir`, an interrupted run continues from its last checkpoint when called
    again with the same arguments, and a finished one is evaluated, not trained again
    (see `run_finetuning`).

    Args:
        task: a name in `TASKS` ("classification", "pair_classification" (needs `text_b`),
            "token_classification" (CoNLL files), "squad" (SQuAD v1.1/v2.0 JSON)) or a
            `Task` subclass.
        checkpoint: any checkpoint `keras_bert.load_checkpoint` reads; its vocab.txt is used.
        train_file, eval_file: data files.
        text_a, text_b, label, labels: column names / label vocabulary (classification).
        seq_length, batch_size, epochs, learning_rate: as usual.
        doc_stride, max_query_length: SQuAD windowing.
        padding: (pair) classification: "dynamic" (each batch padded to its longest example,
            training batches grouped by length) or "full" (to `seq_length`); see
            `ClassificationTask`. The other tasks pad to `seq_length`.
        eval_every_epoch: also evaluate `eval_file` after every epoch (`val_*` in the
            history); by default it is evaluated once, at the end.
        output_dir, checkpoint_every_steps, keep_checkpoints, strategy, mixed_precision,
            jit_compile, seed, gradient_accumulation_steps, verbose: see `run_finetuning`.

    Returns:
        dict: `model`, `history`, `start_step` (where training started: 0, a resumed
        step, or the total for a finished run), `step` (the optimizer step at the end),
        `metrics` on `eval_file` (classification: accuracy, macro_f1, majority_baseline;
        token classification: word accuracy and entity-level precision, recall, f1;
        SQuAD: exact_match, f1; empty without `eval_file`) and `labels` where the task has them.

    Example:
        >>> result = finetune_task("classification", "minilm/", "train.csv", "dev.csv",
        ...                        labels=["neg", "pos"], epochs=2)
        >>> result["metrics"]["accuracy"]
    """
    from keras_bert.checkpoints import model_from_contents, read_checkpoint
    from keras_bert.training.finetuning import run_finetuning
    from keras_bert.training.memory_estimate import check_batch_memory

    if int(gradient_accumulation_steps) < 1 or batch_size % int(gradient_accumulation_steps):
        raise ValueError(f"batch_size={batch_size} cannot be split into gradient_accumulation_steps="
                         f"{gradient_accumulation_steps} equal micro-batches; use a multiple of it.")
    task_class = TASKS.get(task) if isinstance(task, str) else task
    if task_class is None:
        raise ValueError(f"Unknown task {task!r}; expected one of {tuple(TASKS)}.")
    if text_b and task_class.name != "pair_classification":
        raise ValueError(f"text_b (--text_b {text_b}) is only read by task 'pair_classification', "
                         f"not {task_class.name!r}; use that task or drop text_b.")
    runner = task_class(None, seq_length, batch_size, seed, text_a=text_a, text_b=text_b,
                        label=label, labels=labels, doc_stride=doc_stride,
                        max_query_length=max_query_length, padding=padding)
    contents = read_checkpoint(checkpoint)  # once: the model is built from it in the strategy's scope
    check_batch_memory(contents.config, batch_size, seq_length, mixed_precision=mixed_precision)
    text_config = contents.text_config
    if text_config is None:
        raise ValueError(f"{checkpoint} has no vocab.txt next to it; fine-tuning needs the "
                         "checkpoint's own vocabulary.")
    runner.tokenizer = text_config.tokenizer()  # after the task has checked its options
    train = runner.read(train_file, training=True)
    evaluation = runner.read(eval_file, training=False) if eval_file else None
    # What a resumed run must share with the interrupted one (run_config.json).
    run_config = dict(runner.identity(), task=runner.name,
                      checkpoint=os.path.abspath(os.fspath(checkpoint)),
                      train_file=os.path.abspath(os.fspath(train_file)))
    model, history = run_finetuning(
        lambda: runner.build_model(model_from_contents(contents)), train,
        eval_dataset=runner.validation_data(evaluation) if eval_every_epoch and evaluation is not None
        else None,
        run_config=run_config, epochs=epochs, learning_rate=learning_rate, output_dir=output_dir,
        checkpoint_every_steps=checkpoint_every_steps, keep_checkpoints=keep_checkpoints,
        strategy=strategy, mixed_precision=mixed_precision, jit_compile=jit_compile, seed=seed,
        gradient_accumulation_steps=gradient_accumulation_steps, verbose=verbose,
        **runner.compile_kwargs())
    metrics = runner.evaluate(model, evaluation, eval_file) if evaluation is not None else {}
    result = {"model": model, "history": history, "metrics": metrics,
              "start_step": history.start_step, "step": int(model.optimizer.iterations.numpy())}
    if getattr(runner, "labels", None) is not None:
        result["labels"] = runner.labels
    return result
