"""run_finetuning: compile a model with BERT's optimizer and fit it, resumably (the tasks: keras_bert.tasks)."""

import hashlib
import json
import os

from keras_bert.training.divergence_guard import check_predictions
from keras_bert.training.folder_lock import exclusive_run_folder
from keras_bert.training.jax_strategy import JaxStrategy
from keras_bert.training.optimizers import create_optimizer
from keras_bert.training.precision import restores_dtype_policy
from keras_bert.training.run_config import RunConfig
from keras_bert.training.run_folder import RunFolder
from keras_bert.training.run_loop import compile_model, fit_from, resume, split_batches, start_run
from keras_bert.training.strategy import is_chief


def _varying_lengths(dataset):
    """Whether the batches' sequence length varies (dynamic padding): some feature is `[batch, None, ...]`."""
    features = dataset.element_spec[0]
    specs = features.values() if isinstance(features, dict) else [features]
    return any(spec.shape.rank and spec.shape.rank > 1 and spec.shape[1] is None for spec in specs)


def _model_identity(model, identity):
    """What must not change between a run and its resumption: the model's shapes and the task."""
    shapes = [list(v.shape) for v in model.variables]
    return {"class": type(model).__name__, "parameters": int(model.count_params()),
            "variables": len(shapes),
            "shapes_sha1": hashlib.sha1(json.dumps(shapes).encode()).hexdigest(),
            "task": identity or {}}  # made JSON-able by RunFolder


@restores_dtype_policy
def run_finetuning(build_model, train_dataset, *, loss, metrics=None, weighted_metrics=None,
                   epochs=3, steps_per_epoch=None, learning_rate=2e-5, warmup_ratio=0.1,
                   weight_decay=0.01, eval_dataset=None, identity=None, run=None, callbacks=()):
    """Compiles `build_model()` with BERT's optimizer and fits it; with `output_dir`, resumably.

    With `output_dir`, the whole training state (weights, optimizer moments and step,
    dropout RNG) is checkpointed atomically to `output_dir/checkpoints/` at every epoch
    end and every `checkpoint_every_steps` steps (`ResumableCheckpoint`). Calling again
    with the same arguments after an interruption restores the newest checkpoint and
    skips the batches already trained on, so it ends with the weights an uninterrupted
    run would have (after a resume inside an epoch, the Keras epochs, and so validation,
    count from the resume step; the last one ends at the total). A finished run is not
    trained again: its final state is restored and returned (delete the folder to
    retrain). `output_dir/run_config.json` records the model's shapes and `identity`;
    a folder whose checkpoints belong to another model or task is refused.

    Args:
        build_model: `fn() -> keras.Model`, called inside the strategy scope (load the
            checkpoint there, e.g. `lambda: build_classifier(load_checkpoint(path, model="encoder"), 2)`).
        train_dataset: finite, deterministic `tf.data.Dataset` of
            `(features, labels[, sample_weights])` (seeded shuffle, if any).
        loss: Keras loss (or dict of losses per output).
        metrics, weighted_metrics: Keras metrics for `compile`.
        epochs: passes over `train_dataset`.
        steps_per_epoch: default: the dataset's length.
        learning_rate: peak learning rate (BERT fine-tuning: 2e-5 .. 5e-5).
        warmup_ratio: share of the steps spent warming up.
        weight_decay: decoupled weight decay (not on LayerNorm and biases).
        eval_dataset: evaluated after every epoch (`val_*` in the history).
        identity: JSON-able dict naming what the run is (task, init checkpoint, data,
            labels...); resuming with a different one is refused.
        run: a `RunConfig`: `output_dir` (the run folder: `checkpoints/`, `run_config.json`
            and the trained model as `model.keras`, chief only), strategy, precision,
            `jit_compile` ("auto" is off when the batches' sequence length varies (dynamic
            padding) on TensorFlow: XLA compiles a program per shape, ~20-40 s each for MiniLM's training
            step on a 2-core CPU, more than it saves in a fine-tuning run; JAX without XLA runs op by op),
            seed (the new
            head's weights, dropout), gradient accumulation (`accumulate_gradients`),
            `checkpoint_every_steps`, `keep_checkpoints`, verbosity.
        callbacks: extra Keras callbacks.

    Returns:
        `(model, history)`; `history.start_step` is the step training started from
        (0 for a fresh run; the total for a run that had already finished).

    Example:
        >>> model, history = run_finetuning(
        ...     lambda: keras_bert.build_classifier(keras_bert.load_checkpoint(path, model="encoder"), 2), train_ds,
        ...     loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    """
    run = run or RunConfig()
    output_dir, jit_compile = run.output_dir, run.jit_compile
    strategy = start_run(run.strategy, run.mixed_precision, run.seed)
    if jit_compile == "auto" and _varying_lengths(train_dataset) and not isinstance(strategy, JaxStrategy):
        jit_compile = "off"
    if not steps_per_epoch:
        steps_per_epoch = int(train_dataset.cardinality())
        if steps_per_epoch < 0:
            raise ValueError(f"The training dataset must be finite with a known length (got cardinality "
                             f"{steps_per_epoch}); pass steps_per_epoch for endless datasets.")
    total_steps = steps_per_epoch * epochs
    with strategy.scope():
        model = build_model()
        optimizer = create_optimizer(learning_rate, total_steps=total_steps,
                                     warmup_steps=int(warmup_ratio * total_steps),
                                     weight_decay=weight_decay)
    compile_model(model, strategy, optimizer, jit_compile, run.gradient_accumulation_steps,
                  on_nonfinite=run.on_nonfinite, loss=loss,
                  metrics=metrics, weighted_metrics=weighted_metrics)
    chief = is_chief(strategy)
    # One run per folder (a second, concurrent one is refused): from the resume to the saved model.
    with exclusive_run_folder(output_dir if output_dir and chief else None):
        all_callbacks = list(callbacks)
        start_step = 0
        if output_dir:
            output_dir = os.fspath(output_dir)
            settings = {"epochs": int(epochs), "steps_per_epoch": int(steps_per_epoch),
                        "learning_rate": float(learning_rate), "warmup_ratio": float(warmup_ratio),
                        "weight_decay": float(weight_decay), "seed": int(run.seed),
                        "mixed_precision": run.mixed_precision,
                        "gradient_accumulation_steps": int(run.gradient_accumulation_steps)}
            folder = RunFolder(output_dir, _model_identity(model, identity), settings,
                               what="fine-tuning run")
            checkpoint, start_step = resume(folder, model, chief, run.keep_checkpoints, total_steps,
                                            every_n_steps=run.checkpoint_every_steps)
            all_callbacks = [checkpoint] + all_callbacks
        # One iterator reads `repeat()`: a seeded shuffle that reshuffles every epoch then gives every
        # epoch the uninterrupted run's order, and skipping the batches trained on continues it exactly.
        history = fit_from(model, strategy, split_batches(train_dataset.repeat().skip(start_step)),
                           start_step, total_steps, steps_per_epoch, all_callbacks, what="fine-tuning",
                           output_dir=output_dir, validation_data=eval_dataset, verbose=run.verbose,
                           on_nonfinite=run.on_nonfinite)
        check_predictions(model, train_dataset)  # a model that predicts NaN is no success
        if output_dir and chief:  # model.keras via a temporary file, so a kill never leaves half a file
            tmp = os.path.join(output_dir, "model.partial.keras")
            model.save(tmp)
            os.replace(tmp, os.path.join(output_dir, "model.keras"))
    return model, history
