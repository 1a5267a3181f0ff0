"""The run loop on JAX, one device against 2 (virtual) devices, in one fresh process.

Usage: XLA_FLAGS=--xla_force_host_platform_device_count=2 KERAS_BACKEND=jax \\
    python -m tests.training.jax_runs OUTPUT_DIR
Pretrains a tiny BERT (dropout off) and fine-tunes a tiny classifier with strategy "default" (one
device), "data_parallel" and "model_parallel" (2 devices), and pretrains "data_parallel" with 2
micro-batches (gradient accumulation). The "data_parallel" fine-tuning run is cut off after step 5 and run
again (resumed from its step-4 checkpoint), so its row also shows that resume is exact. Writes
OUTPUT_DIR/equality.json (max per-step loss and final-weight differences from the one-device run, per task and
strategy) and the weights of each run (OUTPUT_DIR/<task>_<strategy>.npz), which the resume test compares against.
"""

import json
import os
import sys

import numpy as np

STRATEGIES = ("default", "data_parallel", "model_parallel")


PRETRAINING = {"input": "synthetic", "seq_length": 16, "hidden": 16, "dropout": 0.0, "batch": 8, "steps": 6,
               "steps_per_epoch": 3, "lr": 1e-3}  # the resume test runs it too (tests.integration.pretrain_job)
TINY = dict(vocab_size=64, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
            max_position_embeddings=16, dropout_rate=0.0, attention_dropout_rate=0.0)


def pretrain(output_dir, strategy, accumulation):
    from tests.integration.pretrain_job import run_job

    result = run_job(output_dir, dict(PRETRAINING, strategy=strategy, accumulation=accumulation))
    return [r["loss"] for r in result["rows"] if r["kind"] == "train"], result["model"].weights, 0


class Interrupted(Exception):
    """A run cut off after a step, before any save of that step (as SIGKILL would)."""


def finetune(output_dir, strategy, accumulation, after_step=None, losses=None, jit_compile="auto"):
    """Fine-tunes a tiny classifier 8 steps (2 epochs of a seeded, reshuffled dataset), a checkpoint every 2
    steps; `after_step(step)` is called after each step (e.g. to cut the run off there); `losses` collects the
    per-step losses. Returns `(per-step losses, weights, start step)`. Also run on TensorFlow, under 2 workers
    (tests.integration.pretrain_job)."""
    import keras
    import tensorflow as tf

    import keras_bert
    from keras_bert.training import RunConfig, run_finetuning

    keras.utils.set_random_seed(0)  # the shuffle's seeds: the same in a fresh process and after an earlier run
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 64, (32, 16)).astype("int32")
    features = {"input_word_ids": ids, "input_mask": np.ones_like(ids), "input_type_ids": np.zeros_like(ids)}
    labels = (ids[:, 1] > 34).astype("int32")
    dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(32, seed=0).batch(8)

    def build():
        keras.utils.set_random_seed(0)
        return keras_bert.build_classifier(keras_bert.build_encoder(keras_bert.BertConfig(**TINY)), 2)

    run = RunConfig(output_dir=output_dir, strategy=strategy, verbose=0, gradient_accumulation_steps=accumulation,
                    checkpoint_every_steps=2, jit_compile=jit_compile)
    losses = [] if losses is None else losses
    callback = keras.callbacks.LambdaCallback()

    def step_end(batch, logs):
        losses.append(float(logs["loss"]))
        if after_step:
            after_step(int(callback.model.optimizer.iterations.numpy()))

    callback.on_train_batch_end = step_end
    model, history = run_finetuning(build, dataset, epochs=2, learning_rate=1e-3, run=run, callbacks=[callback],
                                    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return losses, model.weights, history.start_step


def _interrupt_at(step):
    def after_step(done):
        if done == step:
            raise Interrupted()
    return after_step


def finetune_resumed(output_dir, strategy, accumulation):
    """`finetune` cut off after step 5 (its last checkpoint: step 4), then run again (model and data made anew)."""
    cut = []
    try:
        finetune(output_dir, strategy, accumulation, after_step=_interrupt_at(5), losses=cut)
    except Interrupted:
        pass
    losses, weights, start_step = finetune(output_dir, strategy, accumulation)
    return cut[:start_step] + losses, weights, start_step


def refusals():
    """What JAX cannot do, each refused in one line that names what to use instead."""
    import keras

    from keras_bert.training import get_strategy
    from keras_bert.training.run_loop import compile_model

    messages = []
    for attempt in (lambda: get_strategy("mirrored"),
                    lambda: compile_model(keras.Sequential([keras.layers.Dense(1)]), get_strategy("default"),
                                          keras.optimizers.SGD(), on_nonfinite="skip", loss="mse")):
        try:
            attempt()
        except ValueError as error:
            messages.append(str(error))
    return messages


def main(output_dir):
    import keras

    assert keras.backend.backend() == "jax" and len(keras.distribution.list_devices()) == 2
    table = {"refusals": refusals()}
    for task, run, extra in (("pretraining", pretrain, ("data_parallel+accumulation",)), ("fine-tuning", finetune, ())):
        reference = None
        for name in STRATEGIES + extra:
            strategy, _, accumulation = name.partition("+")
            resumed = run is finetune and strategy == "data_parallel"  # this one is cut off and run again
            losses, weights, start_step = (finetune_resumed if resumed else run)(
                os.path.join(output_dir, task, name), strategy, 2 if accumulation else 1)
            weights = [np.asarray(w) for w in weights]
            np.savez(os.path.join(output_dir, f"{task}_{name}.npz"), *weights)
            if reference is None:
                reference = losses, weights
            table[f"{task} {name}"] = {
                "steps": len(losses),
                "loss": float(np.max(np.abs(np.subtract(losses, reference[0])))),
                "weights": max(float(np.max(np.abs(a - b))) for a, b in zip(weights, reference[1])),
                "resumed_from": start_step}
            print(task, name, table[f"{task} {name}"], flush=True)
    with open(os.path.join(output_dir, "equality.json"), "w") as f:
        json.dump(table, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
