"""run_pretraining: BERT pretraining with `model.fit` under tf.distribute or keras.distribution, resumable."""

import os

from keras_bert.models.builders import build_pretrainer
from keras_bert.training.folder_lock import exclusive_run_folder
from keras_bert.training.jax_strategy import JaxStrategy
from keras_bert.training.optimizers import create_optimizer
from keras_bert.training.plotting import plot_curves
from keras_bert.training.precision import restores_dtype_policy
from keras_bert.training.run_folder import RunFolder
from keras_bert.training.run_loop import (check_batch_size, compile_model, fit_from, held_out_batches, resume,
                                          split_batches, start_run, tensorboard_callback)
from keras_bert.training.second_phase import batch_shapes, check_position_embeddings
from keras_bert.training.strategy import is_chief
from keras_bert.training.training_log import TrainingLog

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


def shards_input(directory, **reader_kwargs):
    """`run_pretraining`'s `train_input` from `write_shards`' shards (`ShardReader`; batch `i` depends on `i` only):
    a `tf.data.Dataset`, on JAX `ShardBatches` (NumPy: no TensorFlow; each process its shards and batch share).

    Args:
        directory: the shards folder (`tools/write_shards.py`).
        **reader_kwargs: `ShardReader`'s (max_predictions_per_seq, masked_lm_prob, whole_word_masking, seed).

    Example:
        >>> train_input = shards_input("shards/", max_predictions_per_seq=20, seed=0)
    """
    import keras
    from keras_bert.data.shard_reader import ShardBatches, ShardReader

    ShardReader(directory, 1, **reader_kwargs)  # a bad folder or argument fails here, in one line

    def train_input(global_batch_size, input_context=None):
        if keras.backend.backend() == "jax":  # keras.distribution makes the global batch of the processes' own
            import jax
            return ShardBatches(ShardReader(directory, global_batch_size // jax.process_count(), **reader_kwargs,
                                            process_index=jax.process_index(), process_count=jax.process_count()))
        import tensorflow as tf
        pipeline, pipelines, batch = 0, 1, global_batch_size
        if input_context is not None:
            pipeline, pipelines = input_context.input_pipeline_id, input_context.num_input_pipelines
            batch = input_context.get_per_replica_batch_size(global_batch_size)
        reader = ShardReader(directory, batch, process_index=pipeline, process_count=pipelines, **reader_kwargs)
        signature = tf.nest.map_structure(lambda a: tf.TensorSpec(a.shape, tf.as_dtype(a.dtype)), reader.batch(0))
        return tf.data.Dataset.from_generator(reader.batches, output_signature=signature).prefetch(2)

    return train_input


def _distributed_input(strategy, train_input, global_batch_size, start_step, end_step, input_mode):
    """The training dataset, positioned after the `start_step` batches already trained on; one
    built per pipeline ends at `end_step` (`fit_from` cuts a plain dataset there itself)."""
    if strategy.num_replicas_in_sync == 1 or input_mode == "split" or isinstance(strategy, JaxStrategy):
        # One pipeline produces global batches; Keras splits each across the replicas (on JAX across the devices,
        # and across processes: keras.distribution shards a tf.data dataset; `ShardBatches` read a process's own).
        return split_batches(train_input(global_batch_size, None).skip(start_step))

    def dataset_fn(context):
        # Each input pipeline (one per worker) reads its own share of the files; its
        # replicas take turns, so it has served replicas-per-pipeline batches a step.
        per_step = context.num_replicas_in_sync // context.num_input_pipelines
        return train_input(global_batch_size, context).skip(start_step * per_step).take((end_step - start_step) * per_step)

    return strategy.distribute_datasets_from_function(dataset_fn)


@restores_dtype_policy
def run_pretraining(train_input, config=None, *, run, init_checkpoint=None, vocab_file=None,
                    text_config=None, global_batch_size=32, train_steps=1000, steps_per_epoch=100,
                    learning_rate=1e-4, warmup_steps=None, optimizer="adamw", weight_decay=0.01,
                    steps_per_execution=1, input_mode="shard", eval_input=None, eval_steps=0,
                    tensorboard=True, plot=True, callbacks=(), pack_sequences=False, phase2=None):
    """Pretrains (or resumes pretraining) a BERT with masked-LM + next-sentence losses.

    Everything lands in `run.output_dir`: `checkpoints/` (every `run.checkpoint_every_epochs`
    Keras epochs of `steps_per_epoch` steps), `logs/` (TensorBoard),
    `training_log.csv`, `curves.png`, `run_config.json` (the model config, used to
    refuse a folder holding another model's checkpoints) and `final/` (the trained
    `BertPretrainer` via `save_checkpoint(format="keras")`). Run it again with the
    same arguments after an interruption: it restores weights, optimizer state,
    dropout RNG and the step, and skips the batches already trained on, so it ends
    with the weights an uninterrupted run would have.

    Args:
        train_input: `fn(global_batch_size, input_context)` returning an endless,
            deterministic `tf.data.Dataset` of `(features, labels)` batches, e.g.
            `pretraining_input(...)`. Without an input context a batch holds
            `global_batch_size` examples; with one, this pipeline's share
            (`input_context.get_per_replica_batch_size(global_batch_size)`).
        config: `BertConfig` (or another family's config: `ModernBertConfig`), preset name or dict (ignored
            with `init_checkpoint`).
        run: a `RunConfig`, required: `output_dir` (the run folder, created if needed; None is
            refused), strategy, precision, `jit_compile`, seed (weights, dropout; the data's
            seed is `train_input`'s), `gradient_accumulation_steps` (each global batch runs
            as this many micro-batches in sequence, one optimizer step: less memory, the same
            update when the micro-batches hold equal numbers of masked tokens; see
            `accumulate_gradients`), `checkpoint_every_epochs`, `keep_checkpoints`
            (RunConfig's default, 2, as in fine-tuning) and `verbose` (1: progress bar).
            `checkpoint_every_steps` is fine-tuning's: pretraining checkpoints at epoch ends.
        init_checkpoint: start from this checkpoint (any format `load_checkpoint` reads).
        vocab_file: vocab.txt copied next to the final model.
        text_config: the text contract saved with the final model (`tokenizer.text_config`,
            a `keras_bert.TextConfig`); its vocab.txt replaces `vocab_file`.
        global_batch_size: sequences per step over all replicas.
        train_steps: total optimizer steps.
        steps_per_epoch: steps per Keras epoch (progress bar, logs, evaluation).
        learning_rate: peak learning rate.
        warmup_steps: linear warmup steps (default: 10 % of `train_steps`).
        optimizer: "adamw" or "lamb".
        weight_decay: decoupled weight decay (not applied to LayerNorm and biases).
        steps_per_execution: train steps per `tf.function` call.
        input_mode: with several replicas, "shard" gives each input pipeline its own
            files (`distribute_datasets_from_function`); "split" runs one pipeline per
            worker and splits each global batch across replicas, so the batches equal
            a single-device run's (for checking; every worker reads everything).
        eval_input: like `train_input`, for held-out data evaluated every epoch; its first
            `eval_steps` batches are evaluated each time, held in memory after the first.
        eval_steps: batches per evaluation.
        tensorboard: write TensorBoard logs (where TensorFlow is installed; else said in one line).
        plot: write `curves.png`.
        callbacks: extra Keras callbacks.
        pack_sequences: train a packed `BertPretrainer` on packed rows (`train_input` and
            `eval_input` made with `pack_sequences=True`); `final/` and the returned model
            are the plain (unpacked) model with the same weights.
        phase2: a `SecondPhase` (longer sequences for the last steps, BERT's recipe), or None.
            `train_steps` counts both phases; one optimizer and learning-rate schedule run
            through both; the optimizer step decides the phase on resume, and the run folder
            refuses a resume with other phase shapes or fraction.

    Returns:
        dict with `model` (the `BertPretrainer`), `rows` (the per-step log),
        `start_step`, `step`, `output_dir` and `validation` (the held-out batches evaluated, or None).

    Example:
        >>> tokenizer = keras_bert.Tokenizer("vocab.txt")
        >>> run = keras_bert.training.RunConfig(output_dir="runs/tiny", mixed_precision="bf16")
        >>> result = run_pretraining(pretraining_input(files, tokenizer), "bert_tiny_uncased",
        ...                          run=run, train_steps=500)
    """
    if run is None or run.output_dir is None:
        raise ValueError("run_pretraining needs a run folder: pass run=RunConfig(output_dir=...) "
                         "(--output_dir).")
    output_dir = os.fspath(run.output_dir)
    _check_sizes(input_mode, global_batch_size, train_steps, steps_per_epoch, steps_per_execution)
    strategy = start_run(run.strategy, run.mixed_precision, run.seed)
    check_batch_size(global_batch_size, strategy, run.gradient_accumulation_steps)
    chief = is_chief(strategy)
    warmup_steps = train_steps // 10 if warmup_steps is None else warmup_steps
    with strategy.scope():
        model = _pretrainer(config, init_checkpoint).with_packing(pack_sequences)
        opt = create_optimizer(learning_rate, total_steps=train_steps, warmup_steps=warmup_steps,
                               optimizer=optimizer, weight_decay=weight_decay)
    compile_model(model, strategy, opt, run.jit_compile, run.gradient_accumulation_steps,
                  on_nonfinite=run.on_nonfinite, steps_per_execution=steps_per_execution)
    bert_config = model.config
    vocab_file = text_config.vocab_file if text_config is not None else vocab_file
    _check_vocab(vocab_file, bert_config, text_config)
    settings = {"global_batch_size": int(global_batch_size), "train_steps": int(train_steps),
                "learning_rate": float(learning_rate), "warmup_steps": int(warmup_steps),
                "optimizer": optimizer, "seed": int(run.seed), "mixed_precision": run.mixed_precision,
                "gradient_accumulation_steps": int(run.gradient_accumulation_steps),
                **({"pack_sequences": True} if pack_sequences else {})}
    identity = bert_config.to_dict()
    phases = _phases(train_input, phase2, train_steps, steps_per_epoch, global_batch_size, bert_config)
    if phase2 is not None:
        identity["two_phase"] = {"phase1": phases[0][3], "phase2": phases[1][3],
                                 "fraction": float(phase2.fraction)}
    with exclusive_run_folder(output_dir if chief else None):  # one run per folder, until final/ is written
        folder = RunFolder(output_dir, identity, settings, what="model")
        checkpoint, start_step = resume(folder, model, chief, run.keep_checkpoints, train_steps,
                                        every_n_epochs=run.checkpoint_every_epochs)
        if chief:
            bert_config.to_json(os.path.join(output_dir, "bert_config.json"))
        log = TrainingLog(os.path.join(output_dir, "training_log.csv") if chief else None, start_step=start_step)
        board = tensorboard_callback(output_dir) if tensorboard and chief else None  # None: no TensorFlow
        all_callbacks = [log, checkpoint, *([board] if board else [])]
        validation = None
        if eval_input is not None and eval_steps:  # the same held-out batches every epoch
            validation = split_batches(held_out_batches(eval_input(global_batch_size, None), eval_steps))
        for number, (phase_input, first, end, shape) in enumerate(phases, 1):
            begin = max(start_step, first)
            if begin >= end and end < train_steps:
                continue  # phase 1 of a run resumed in phase 2
            what = "pretraining" if len(phases) == 1 else f"pretraining phase {number} of {len(phases)}"
            if len(phases) > 1 and run.verbose and begin < end:
                print(f"{what[0].upper()}{what[1:]}: sequences of {shape['seq_length']} tokens, "
                      f"{shape['max_predictions_per_seq']} predictions each, steps {first} -> {end}.")
            fit_from(model, strategy, _distributed_input(strategy, phase_input, global_batch_size,
                                                         begin - first, end - first, input_mode),
                     begin, end, steps_per_epoch, all_callbacks + list(callbacks), what=what,
                     output_dir=output_dir, validation_data=validation,
                     validation_steps=eval_steps or None, verbose=run.verbose,
                     resumed=begin == start_step > 0, on_nonfinite=run.on_nonfinite)
            if int(model.optimizer.iterations.numpy()) < end:
                break  # stopped early (a callback; a NaN loss raises): no phase 2 before phase 1 is done
        step = int(model.optimizer.iterations.numpy())
        model = model.with_packing(False)  # a new model, without the optimizer
        if chief:
            _finish(model, output_dir, vocab_file, text_config, log.rows if plot else None)
    return {"model": model, "rows": log.rows, "start_step": start_step, "step": step,
            "output_dir": output_dir, "validation": validation}


def _phases(train_input, phase2, train_steps, steps_per_epoch, global_batch_size, bert_config):
    """`(input, first step, end step, batch shapes or None)` for each phase of the run."""
    if phase2 is None:
        return [(train_input, 0, train_steps, None)]
    switch = phase2.first_step(train_steps, steps_per_epoch)
    inputs = [(train_input, 0, switch), (phase2.train_input, switch, train_steps)]
    shapes = [batch_shapes(phase_input, global_batch_size) for phase_input, _, _ in inputs]
    check_position_embeddings([s["seq_length"] for s in shapes], bert_config.max_position_embeddings)
    return [(*phase, shape) for phase, shape in zip(inputs, shapes)]


def _check_sizes(input_mode, global_batch_size, train_steps, steps_per_epoch, steps_per_execution):
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
            raise ValueError(f"{name}={value} (--{name}) is not a multiple of steps_per_execution={steps_per_execution} "
                             "(--steps_per_execution); training stops and checkpoints only between executions. "
                             "Make it a multiple.")


def _pretrainer(config, init_checkpoint):
    if init_checkpoint:
        from keras_bert.checkpoints import load_checkpoint

        return load_checkpoint(init_checkpoint, model="pretrainer")
    if config is None:
        raise ValueError("Pass a config (BertConfig, preset name or dict) or an init_checkpoint.")
    return build_pretrainer(config)  # a family config (ModernBertConfig), BertConfig, preset name or dict


def _check_vocab(vocab_file, bert_config, text_config=None):
    if not vocab_file:
        return
    from keras_bert.text.vocab import load_vocab

    # The tokenizer's own count: a byte-level BPE's vocab.json or a SentencePiece model is not one token a line.
    wordpiece = text_config is None or text_config.tokenizer_kind.token_lines
    vocab_size = len(load_vocab(vocab_file)) if wordpiece else text_config.tokenizer().vocab_size
    if vocab_size != bert_config.vocab_size:
        raise ValueError(f"{vocab_file} has {vocab_size} tokens but the model's vocab_size is {bert_config.vocab_size}; "
                         "use the vocab.txt that belongs to the model (or set "
                         f"vocab_size={vocab_size} in the config when training from scratch).")


def _finish(model, output_dir, vocab_file, text_config, rows):
    """The chief's last writes: `final/` (keras_bert format) and, given the log rows, curves.png."""
    from keras_bert.checkpoints import save_checkpoint

    save_checkpoint(model, os.path.join(output_dir, "final"), format="keras", vocab_file=vocab_file,
                    text_config=text_config)
    if rows and any(r.get("kind") == "epoch_end" for r in rows):
        config = model.config
        plot_curves(rows, os.path.join(output_dir, "curves.png"),
                    title=f"BERT pretraining (L{config.num_layers}/H{config.hidden_size})")
