"""run_pretraining: BERT pretraining with `model.fit` under a tf.distribute strategy, resumable."""

import contextlib
import json
import math
import os

import keras
import tensorflow as tf

from keras_bert.config import BertConfig
from keras_bert.errors import make_dir
from keras_bert.models.bert_encoder import as_config
from keras_bert.models.builders import build_pretrainer
from keras_bert.training.optimizers import create_optimizer
from keras_bert.training.plotting import plot_curves
from keras_bert.training.precision import (resolve_jit_compile, restores_dtype_policy,
                                              set_mixed_precision)
from keras_bert.training.resumable_checkpoint import ResumableCheckpoint
from keras_bert.training.scalar_logger import ScalarLogger
from keras_bert.training.step_limit import StepLimit
from keras_bert.training.strategy import get_strategy, is_chief
from keras_bert.training.training_log import TrainingLog

RUN_CONFIG = "run_config.json"
INPUT_MODES = ("shard", "split")


def pretraining_input(files, tokenizer, **dataset_kwargs):
    """The `train_input` for `run_pretraining` from text files, via `keras_bert.data.pretraining_dataset`.

    Args:
        files: text files (BERT's one-sentence-per-line format or plain text), a glob or a list.
        tokenizer: a `keras_bert.Tokenizer`.
        **dataset_kwargs: more `pretraining_dataset` arguments (seq_length,
            max_predictions_per_seq, seed, short_seq_prob, ...).

    Returns:
        `fn(global_batch_size, input_context)` returning an endless dataset of batches.

    Example:
        >>> train_input = pretraining_input(files, tokenizer, seq_length=128, seed=0)
    """
    from keras_bert.data.pretraining import pretraining_dataset

    if isinstance(files, (list, tuple)) and not files:
        raise ValueError("The pretraining corpus is empty: no text files were given. Pass text "
                         "files (one sentence per line, a blank line between documents).")
    dataset_kwargs = dict(dataset_kwargs, repeat=True)

    def train_input(global_batch_size, input_context=None):
        return pretraining_dataset(files, tokenizer, batch_size=global_batch_size,
                                   input_context=input_context, **dataset_kwargs)

    return train_input


def _check_output_dir(output_dir, run_config):
    """Refuses an output dir that holds another model's checkpoints; writes run_config.json."""
    path = os.path.join(output_dir, RUN_CONFIG)
    checkpoint_dir = os.path.join(output_dir, "checkpoints")
    has_checkpoints = tf.train.latest_checkpoint(checkpoint_dir) is not None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
        old, new = stored.get("bert_config", {}), run_config["bert_config"]
        if old != new:
            diff = ", ".join(f"{k}: {old.get(k)!r} there vs {new.get(k)!r} now"
                             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k))
            raise ValueError(
                f"{output_dir} holds checkpoints of a different model ({diff}). Refusing to mix "
                "them: pass a new --output_dir, or delete that folder to start over.")
        changed = {k: (stored.get("training", {}).get(k), v)
                   for k, v in run_config["training"].items()
                   if stored.get("training", {}).get(k) != v}
        if changed and has_checkpoints:
            print(f"Note: resuming {output_dir} with changed settings "
                  + ", ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in changed.items()))
    elif has_checkpoints:
        raise ValueError(
            f"{checkpoint_dir} holds checkpoints but {path} is missing, so it cannot be checked "
            "that they belong to this model. Use a new --output_dir or delete the folder.")
    return path


def check_finished_run(run_config_path, training, output_dir):
    """Refuses to re-run a finished run with changed settings: it would report the old results."""
    stored = {}
    if os.path.exists(run_config_path):
        with open(run_config_path, encoding="utf-8") as f:
            stored = json.load(f).get("training", {})
    changed = [f"{k} {stored.get(k)!r} -> {v!r}" for k, v in training.items() if stored.get(k) != v]
    if changed:
        raise ValueError(
            f"{output_dir} holds a finished run made with other settings ({', '.join(changed)}); "
            "its results are not this command's. Pass a new --output_dir, or delete that folder "
            "to start fresh.")


def _write_json(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


@contextlib.contextmanager
def _keras_mwms_workaround(model, strategy):
    """Lets Keras 3.15 `fit` run under MultiWorkerMirroredStrategy (keras-team/keras#20585).

    Two Keras bugs, both only with the collective multi-worker strategy:
    1. `fit` "symbolically builds" a model made in a strategy scope with
       `strategy.reduce("MEAN", batch)` on a nested batch, which the collective
       all-reduce cannot take. With the model's own strategy unset, Keras skips
       it and takes the strategy from the enclosing `strategy.scope()`;
       everything the step needs was built in that scope.
    2. Each step's logs (scalars, already synchronized across replicas) are
       reduced with `strategy.reduce("MEAN", v, axis=0)`, which fails on scalars.
       The step functions return them with shape [1] instead; the mean of equal
       values is the value.
    """
    if not isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy):
        yield
        return
    saved = model._distribute_strategy  # pylint: disable=protected-access
    model._distribute_strategy = None  # pylint: disable=protected-access
    for name in ("train_step", "test_step"):
        if not getattr(getattr(model, name), "_keras_bert_rank1", False):
            setattr(model, name, _rank1_logs(getattr(model, name)))
    try:
        yield
    finally:
        model._distribute_strategy = saved  # pylint: disable=protected-access


def _rank1_logs(step_fn):
    def step(data):
        return {k: tf.reshape(v, [1]) if v.shape.rank == 0 else v
                for k, v in step_fn(data).items()}
    step._keras_bert_rank1 = True  # pylint: disable=protected-access
    return step


def _data_sharding():
    """Options that split each global batch across workers (not their files)."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return options


def _distributed_input(strategy, train_input, global_batch_size, start_step, input_mode):
    """The training dataset, positioned after the `start_step` batches already trained on."""
    if strategy.num_replicas_in_sync == 1 or input_mode == "split":
        # One pipeline produces global batches; Keras splits each across the replicas.
        return train_input(global_batch_size, None).skip(start_step).with_options(_data_sharding())

    def dataset_fn(context):
        # Each input pipeline (one per worker) reads its own share of the files; its
        # replicas take turns, so it has served replicas-per-pipeline batches a step.
        consumed = start_step * (context.num_replicas_in_sync // context.num_input_pipelines)
        return train_input(global_batch_size, context).skip(consumed)

    return strategy.distribute_datasets_from_function(dataset_fn)


@restores_dtype_policy
def run_pretraining(output_dir, train_input, config=None, *, init_checkpoint=None,
                    vocab_file=None, text_config=None, global_batch_size=32, train_steps=1000, steps_per_epoch=100,
                    checkpoint_every_epochs=1, keep_checkpoints=3, learning_rate=1e-4,
                    warmup_steps=None, optimizer="adamw", weight_decay=0.01, strategy=None,
                    mixed_precision="off", jit_compile="auto", steps_per_execution=1, seed=0,
                    input_mode="shard", eval_input=None, eval_steps=0, tensorboard=True,
                    plot=True, callbacks=(), verbose=1, pack_sequences=False):
    """Pretrains (or resumes pretraining) a BERT with masked-LM + next-sentence losses.

    Everything lands in `output_dir`: `checkpoints/` (every `checkpoint_every_epochs`
    Keras epochs of `steps_per_epoch` steps), `logs/` (TensorBoard),
    `training_log.csv`, `curves.png`, `run_config.json` (the model config, used to
    refuse a folder holding another model's checkpoints) and `final/` (the trained
    `BertPretrainer` via `save_checkpoint(format="keras")`). Run it again with the
    same arguments after an interruption: it restores weights, optimizer state,
    dropout RNG and the step, and skips the batches already trained on, so it ends
    with the weights an uninterrupted run would have.

    Args:
        output_dir: run folder (created if needed).
        train_input: `fn(global_batch_size, input_context)` returning an endless,
            deterministic `tf.data.Dataset` of `(features, labels)` batches, e.g.
            `pretraining_input(...)`. Without an input context a batch holds
            `global_batch_size` examples; with one, this pipeline's share
            (`input_context.get_per_replica_batch_size(global_batch_size)`).
        config: `BertConfig`, preset name or dict (ignored with `init_checkpoint`).
        init_checkpoint: start from this checkpoint (any format `load_checkpoint` reads).
        vocab_file: vocab.txt copied next to the final model.
        text_config: the text contract saved with the final model (`tokenizer.text_config`,
            a `keras_bert.TextConfig`); its vocab.txt replaces `vocab_file`.
        global_batch_size: sequences per step over all replicas.
        train_steps: total optimizer steps.
        steps_per_epoch: steps per Keras epoch (progress bar, logs, evaluation).
        checkpoint_every_epochs: checkpoint interval in epochs.
        keep_checkpoints: checkpoints kept on disk.
        learning_rate: peak learning rate.
        warmup_steps: linear warmup steps (default: 10 % of `train_steps`).
        optimizer: "adamw" or "lamb".
        weight_decay: decoupled weight decay (not applied to LayerNorm and biases).
        strategy: a `tf.distribute.Strategy` or a `get_strategy` name (default "auto").
        mixed_precision: "off", "bf16" or "fp16".
        jit_compile: "auto", "on" or "off" (XLA).
        steps_per_execution: train steps per `tf.function` call.
        seed: seed for weights, dropout (and, through `train_input`, the data).
        input_mode: with several replicas, "shard" gives each input pipeline its own
            files (`distribute_datasets_from_function`); "split" runs one pipeline per
            worker and splits each global batch across replicas, so the batches equal
            a single-device run's (for checking; every worker reads everything).
        eval_input: like `train_input`, for held-out data evaluated every epoch.
        eval_steps: batches per evaluation.
        tensorboard: write TensorBoard logs.
        plot: write `curves.png`.
        callbacks: extra Keras callbacks.
        verbose: Keras verbosity (1: progress bar).
        pack_sequences: train a packed `BertPretrainer` on packed rows (`train_input` and
            `eval_input` made with `pack_sequences=True`); `final/` and the returned model
            are the plain (unpacked) model with the same weights.

    Returns:
        dict with `model` (the `BertPretrainer`), `rows` (the per-step log),
        `start_step`, `step` and `output_dir`.

    Example:
        >>> tokenizer = keras_bert.Tokenizer("vocab.txt")
        >>> result = run_pretraining("runs/tiny", pretraining_input(files, tokenizer),
        ...                          "bert_tiny_uncased", train_steps=500)
    """
    output_dir = os.fspath(output_dir)
    if input_mode not in INPUT_MODES:
        raise ValueError(f"input_mode={input_mode!r} is not supported; expected one of {INPUT_MODES}.")
    for name, flag, value in (("global_batch_size", "--batch_size", global_batch_size),
                              ("train_steps", "--train_steps", train_steps),
                              ("steps_per_epoch", "--steps_per_epoch", steps_per_epoch),
                              ("steps_per_execution", "--steps_per_execution", steps_per_execution)):
        if int(value) <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value} ({flag}).")
    for name, value in (("train_steps", train_steps), ("steps_per_epoch", steps_per_epoch)):
        if value % steps_per_execution:
            raise ValueError(
                f"{name}={value} (--{name}) is not a multiple of steps_per_execution="
                f"{steps_per_execution} (--steps_per_execution); training stops and checkpoints "
                "only between executions. Make it a multiple.")
    if isinstance(strategy, str) or strategy is None:
        strategy = get_strategy(strategy or "auto")
    replicas = strategy.num_replicas_in_sync
    if global_batch_size % replicas:
        raise ValueError(
            f"global_batch_size={global_batch_size} cannot be split evenly across {replicas} "
            f"replicas; use a multiple of {replicas}, e.g. {replicas * max(1, global_batch_size // replicas)}.")
    chief = is_chief(strategy)
    set_mixed_precision(mixed_precision)
    keras.utils.set_random_seed(seed)
    if warmup_steps is None:
        warmup_steps = train_steps // 10

    from keras_bert.checkpoints import load_checkpoint, save_checkpoint

    with strategy.scope():
        if init_checkpoint:
            model = load_checkpoint(init_checkpoint, model="pretrainer")
        else:
            if config is None:
                raise ValueError("Pass a config (BertConfig, preset name or dict) or an init_checkpoint.")
            model = build_pretrainer(as_config(config))
        model = model.with_packing(pack_sequences)
        opt = create_optimizer(learning_rate, total_steps=train_steps, warmup_steps=warmup_steps,
                               optimizer=optimizer, weight_decay=weight_decay)
        model.compile(optimizer=opt, jit_compile=resolve_jit_compile(jit_compile, strategy),
                      steps_per_execution=steps_per_execution)
    bert_config = model.config
    vocab_file = text_config.vocab_file if text_config is not None else vocab_file
    if vocab_file:
        from keras_bert.text.vocab import load_vocab

        vocab_size = len(load_vocab(vocab_file))
        if vocab_size != bert_config.vocab_size:
            raise ValueError(
                f"{vocab_file} has {vocab_size} tokens but the model's vocab_size is "
                f"{bert_config.vocab_size}; use the vocab.txt that belongs to the model (or set "
                f"vocab_size={vocab_size} in the config when training from scratch).")

    make_dir(output_dir, "output_dir (--output_dir)")
    run_config = {
        "bert_config": bert_config.to_dict(),
        "training": {"global_batch_size": int(global_batch_size), "train_steps": int(train_steps),
                     "learning_rate": float(learning_rate), "warmup_steps": int(warmup_steps),
                     "optimizer": optimizer, "seed": int(seed), "mixed_precision": mixed_precision,
                     **({"pack_sequences": True} if pack_sequences else {})},
    }
    run_config_path = _check_output_dir(output_dir, run_config)
    checkpoint = ResumableCheckpoint(os.path.join(output_dir, "checkpoints"), model,
                                     max_to_keep=keep_checkpoints, is_chief=chief,
                                     every_n_epochs=checkpoint_every_epochs)
    start_step = checkpoint.restore()
    if start_step >= train_steps:
        check_finished_run(run_config_path, run_config["training"], output_dir)
    if chief:
        _write_json(run_config_path, run_config)
        bert_config.to_json(os.path.join(output_dir, "bert_config.json"))
    log = TrainingLog(os.path.join(output_dir, "training_log.csv") if chief else None,
                      start_step=start_step)
    if start_step:
        print(f"Resuming from step {start_step} (checkpoint in {checkpoint.directory}).")

    if start_step < train_steps:
        all_callbacks = [StepLimit(train_steps), log, checkpoint, keras.callbacks.TerminateOnNaN()]
        if tensorboard and chief:
            all_callbacks.append(ScalarLogger(os.path.join(output_dir, "logs")))
        all_callbacks.extend(callbacks)
        dataset = _distributed_input(strategy, train_input, global_batch_size, start_step, input_mode)
        validation = None
        if eval_input is not None and eval_steps:
            validation = eval_input(global_batch_size, None).take(eval_steps).with_options(
                _data_sharding())
        initial_epoch = start_step // steps_per_epoch
        epochs = initial_epoch + math.ceil((train_steps - start_step) / steps_per_epoch)
        with strategy.scope(), _keras_mwms_workaround(model, strategy):
            model.fit(dataset, epochs=epochs, initial_epoch=initial_epoch, shuffle=False,
                      steps_per_epoch=steps_per_epoch, validation_data=validation,
                      validation_steps=eval_steps or None, callbacks=all_callbacks,
                      verbose=verbose)
    step = int(model.optimizer.iterations.numpy())
    model = model.with_packing(False)
    if chief:
        save_checkpoint(model, os.path.join(output_dir, "final"), format="keras",
                        vocab_file=vocab_file, text_config=text_config)
        if plot and any(r.get("kind") == "epoch_end" for r in log.rows):
            plot_curves(log.rows, os.path.join(output_dir, "curves.png"),
                        title=f"BERT pretraining (L{bert_config.num_layers}/H{bert_config.hidden_size})")
    return {"model": model, "rows": log.rows, "start_step": start_step, "step": step,
            "output_dir": output_dir}
