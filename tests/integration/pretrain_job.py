"""Runs `run_pretraining` in its own process, for the kill/resume and multi-worker tests.

Usage: python -m tests.integration.pretrain_job OUTPUT_DIR JSON_OPTIONS
JSON options: input ("synthetic" | "shakespeare"), steps, steps_per_epoch, batch,
strategy, input_mode, dropout, hidden, layers, seed, vocab, seq_length, predictions,
logical_cpus (split the CPU into that many logical devices first), stop_after (end
the process early at that step, as if interrupted), sigkill_at (the process kills itself
with SIGKILL after that step), accumulation (micro-batches per batch), weight_decay,
phase2_seq_length / phase2_predictions / phase2_fraction (a second phase), debug, pretrain (false: skip it),
finetune ({} or {"sigkill_at": step}: then fine-tune `tests.training.jax_runs.finetune`'s tiny classifier),
then ([[OUTPUT_DIR, JSON_OPTIONS], ...]: more jobs, one after the other in this process, each with the options
above but finetune, updated by its own; e.g. the one-device run and those under "mirrored", which each start
from RunConfig's seed, without a process and a TensorFlow import each).
Each process writes summary_PID.json (its per-step losses) and weights_PID.npz (the final weights); the
fine-tuning job finetune_summary_PID.json and finetune_weights_PID.npz.
`run_job` runs the same job in the calling process.
"""

import json
import os
import signal
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main(argv):
    output_dir, options = argv[0], json.loads(argv[1])
    import tensorflow as tf

    if options.get("logical_cpus"):
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * options["logical_cpus"])
    from keras_bert.training import get_strategy

    strategy = get_strategy(options.get("strategy", "default"))  # first: MWMS must come early
    _jobs(output_dir, options, strategy)
    for folder, overrides in options.get("then", []):  # more jobs in this process, one after the other
        more = {k: v for k, v in options.items() if k not in ("then", "finetune")}
        more.update(overrides)
        _jobs(folder, more, get_strategy(more.get("strategy", "default")))


def _jobs(output_dir, options, strategy):
    """The pretraining and fine-tuning jobs of `options` in `output_dir`, under `strategy`."""
    os.makedirs(output_dir, exist_ok=True)
    if options.get("pretrain", True):
        result = run_job(output_dir, options, strategy=strategy)
        rows = [r for r in result["rows"] if r["kind"] == "train"]
        summary = {"start_step": result["start_step"], "step": result["step"],
                   "losses": [[r["step"], r["loss"]] for r in rows]}
        _write(output_dir, "", summary, result["model"].weights)
        print("DONE", json.dumps({k: summary[k] for k in ("start_step", "step")}), flush=True)
    if "finetune" in options:  # then the fine-tuning job of tests.training.jax_runs, in output_dir/finetune
        from tests.training.jax_runs import finetune

        kill = options["finetune"].get("sigkill_at")
        losses, weights, start_step = finetune(
            os.path.join(output_dir, "finetune"), strategy, options.get("accumulation", 1),
            after_step=lambda step: step == kill and os.kill(os.getpid(), signal.SIGKILL),
            jit_compile=options.get("jit_compile", "auto"))
        _write(output_dir, "finetune_", {"start_step": start_step, "losses": losses}, weights)
        print("FINETUNED", json.dumps({"start_step": start_step, "steps": len(losses)}), flush=True)


def _write(output_dir, prefix, summary, weights):
    import numpy as np

    with open(os.path.join(output_dir, f"{prefix}summary_{os.getpid()}.json"), "w") as f:
        json.dump(summary, f)
    np.savez(os.path.join(output_dir, f"{prefix}weights_{os.getpid()}.npz"), *[np.asarray(w) for w in weights])


def run_job(output_dir, options, callbacks=(), strategy=None):
    """The job of `main`, in this process; returns `run_pretraining`'s result."""
    from keras_bert.training import RunConfig, SecondPhase, StepLimit, get_strategy, run_pretraining

    strategy = strategy or get_strategy(options.get("strategy", "default"))  # first: MWMS must come early
    if options.get("debug"):
        import keras

        keras.config.disable_traceback_filtering()
    from keras_bert import BertConfig

    seq_length = options.get("seq_length", 16)
    predictions = options.get("predictions", 3)
    vocab_file = phase2 = None
    if options.get("input", "synthetic") == "synthetic":
        from tests.training.synthetic import VOCAB_SIZE, synthetic_input

        train_input = synthetic_input(seq_length, predictions, seed=options.get("seed", 0))
        vocab_size = VOCAB_SIZE
        if options.get("phase2_seq_length"):
            long_input = synthetic_input(options["phase2_seq_length"], options["phase2_predictions"],
                                         seed=options.get("seed", 0) + 1)
            phase2 = SecondPhase(long_input, fraction=options["phase2_fraction"])
    else:
        from keras_bert import Tokenizer
        from keras_bert.data.corpus import shakespeare_files
        from keras_bert.training import pretraining_input

        vocab_file = options["vocab"]
        tokenizer = Tokenizer(vocab_file)
        files = shakespeare_files()[: options.get("files", 4)]
        train_input = pretraining_input(
            files, tokenizer, seq_length=seq_length, max_predictions_per_seq=predictions,
            seed=options.get("seed", 0), short_seq_prob=options.get("short_seq_prob", 0.1))
        vocab_size = tokenizer.vocab_size
    hidden = options.get("hidden", 32)
    longest = max(64, seq_length, options.get("phase2_seq_length", 0))
    config = BertConfig(vocab_size=vocab_size, hidden_size=hidden, num_layers=options.get("layers", 1),
                        num_heads=2, intermediate_size=2 * hidden, max_position_embeddings=longest,
                        dropout_rate=options.get("dropout", 0.1),
                        attention_dropout_rate=options.get("dropout", 0.1))
    callbacks = list(callbacks)
    if options.get("stop_after"):
        callbacks.append(StepLimit(options["stop_after"]))
    if options.get("sigkill_at"):
        callbacks.append(_sigkill_after(options["sigkill_at"]))
    run = RunConfig(output_dir=output_dir, strategy=strategy, jit_compile=options.get("jit_compile", "auto"),
                    seed=options.get("seed", 0), gradient_accumulation_steps=options.get("accumulation", 1),
                    verbose=0)
    return run_pretraining(
        train_input, config, run=run, vocab_file=vocab_file,
        global_batch_size=options.get("batch", 16), train_steps=options.get("steps", 60),
        callbacks=callbacks,
        steps_per_epoch=options.get("steps_per_epoch", 10), learning_rate=options.get("lr", 1e-3),
        input_mode=options.get("input_mode", "split"),
        steps_per_execution=options.get("steps_per_execution", 1), plot=False,
        weight_decay=options.get("weight_decay", 0.01), phase2=phase2)


def _sigkill_after(step):
    import keras

    class SigkillAfter(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if int(self.model.optimizer.iterations.numpy()) >= step:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, as a killed machine

    return SigkillAfter()


if __name__ == "__main__":
    main(sys.argv[1:])
