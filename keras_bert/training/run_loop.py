"""The one run loop of pretraining and fine-tuning: preamble, compile, resume, resumable `fit`."""

import contextlib
import importlib.util
import math
import os
import sys

import keras

from keras_bert.compat import build_for_fit, model_without_strategy
from keras_bert.data.shard_reader import ShardBatches

from keras_bert.training.divergence_guard import DivergenceGuard, check_mode, skip_nonfinite_updates
from keras_bert.training.gradient_accumulation import accumulate_gradients
from keras_bert.training.jax_strategy import JaxStrategy
from keras_bert.training.precision import resolve_jit_compile, set_mixed_precision
from keras_bert.training.resumable_checkpoint import ResumableCheckpoint
from keras_bert.training.step_limit import StepLimit
from keras_bert.training.strategy import get_strategy


def start_run(strategy, mixed_precision, seed):
    """The preamble: the strategy (an instance or a `get_strategy` name), precision policy, seeds."""
    if isinstance(strategy, str) or strategy is None:
        strategy = get_strategy(strategy or "auto")
    set_mixed_precision(mixed_precision)
    keras.utils.set_random_seed(seed)
    return strategy


def check_batch_size(global_batch_size, strategy, gradient_accumulation_steps=1):
    """Refuses a global batch that the replicas times the micro-batches do not divide."""
    replicas, steps = strategy.num_replicas_in_sync, int(gradient_accumulation_steps)
    if steps < 1:
        raise ValueError(f"gradient_accumulation_steps must be a positive integer, got {steps}.")
    parts = replicas * steps
    if global_batch_size % parts:
        split = f"{replicas} replicas" + (f" x {steps} micro-batches" if steps > 1 else "")
        fit = parts * max(1, global_batch_size // parts)
        flags = f"--batch_size {fit}" + (f" with --gradient_accumulation_steps {steps}" if steps > 1 else "")
        raise ValueError(
            f"global_batch_size={global_batch_size} cannot be split evenly across {split}; "
            f"use a multiple of {parts}, e.g. {fit} ({flags}).")


def compile_model(model, strategy, optimizer, jit_compile="auto", gradient_accumulation_steps=1,
                  on_nonfinite="stop", **compile_kwargs):
    """`model.compile` in the strategy's scope, then `accumulate_gradients`.

    `on_nonfinite="skip"`: a step with non-finite gradients leaves the weights unchanged
    (`skip_nonfinite_updates`); "stop" is enforced by `fit_from`'s `DivergenceGuard`.
    """
    with strategy.scope():
        if check_mode(on_nonfinite) == "skip":
            if isinstance(strategy, JaxStrategy):
                raise ValueError("--on_nonfinite skip is TensorFlow's (its update step is tf.cond); on JAX use "
                                 "--on_nonfinite stop (the default), or set KERAS_BACKEND=tensorflow.")
            skip_nonfinite_updates(optimizer)
        if isinstance(strategy, JaxStrategy):  # a metric made before holds one device's variables: made again here
            compile_kwargs.update({key: keras.tree.map_structure(_made_in_scope, compile_kwargs[key])
                                   for key in ("metrics", "weighted_metrics") if compile_kwargs.get(key)})
        model.compile(optimizer=optimizer, jit_compile=resolve_jit_compile(jit_compile, strategy),
                      **compile_kwargs)
        if isinstance(strategy, JaxStrategy):  # its slots take the weights' layouts (model_parallel)
            model.optimizer.build(model.trainable_variables)
    accumulate_gradients(model, gradient_accumulation_steps)
    return model


def _made_in_scope(metric):
    """A new, empty copy of a Keras metric object (its variables made in the current distribution's scope)."""
    return type(metric).from_config(metric.get_config()) if isinstance(metric, keras.metrics.Metric) else metric


def resume(folder, model, chief, keep_checkpoints, total_steps, **checkpoint_kwargs):
    """Checks the `RunFolder`, restores its newest checkpoint and records the run's identity.

    Returns:
        `(checkpoint, start_step)`: the `ResumableCheckpoint` callback and the restored step.
    """
    folder.check()
    checkpoint = ResumableCheckpoint(folder.checkpoint_dir, model, max_to_keep=keep_checkpoints,
                                     is_chief=chief, **checkpoint_kwargs)
    start_step = checkpoint.restore()
    folder.check_resumable(start_step, total_steps)
    if chief:
        folder.write()
    return checkpoint, start_step


def split_batches(dataset):
    """Each global batch is cut across the replicas (not the files across workers); other than tf.data's
    datasets (`ShardBatches`: NumPy batches on JAX) are returned as they are."""
    if not _is_tf_dataset(dataset):
        return dataset
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.with_options(options)


def held_out_batches(dataset, steps):
    """The first `steps` batches of the `tf.data.Dataset` `dataset`, made once and kept in memory: every
    epoch's evaluation and the unigram bar read these same batches. (`take(steps).cache()` refilled the
    input's shuffle buffer for each: Keras stops after `steps` batches, so the cache never completed;
    a 2-step tiny run with a held-out file spent 45 of its 64 CPU-s there.)"""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    batches = list(dataset.take(steps).as_numpy_iterator())
    return tf.data.Dataset.from_tensor_slices(tf.nest.map_structure(lambda *arrays: np.stack(arrays), *batches))


def _is_tf_dataset(dataset):
    """Whether `dataset` is a `tf.data.Dataset` (TensorFlow is imported where one exists: no import here, so a JAX
    run fed `ShardBatches` runs where TensorFlow is not installed)."""
    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(dataset, tf.data.Dataset)


def fit_from(model, strategy, dataset, start_step, total_steps, steps_per_epoch, callbacks=(),
             what="training", output_dir=None, resumed=None, on_nonfinite="stop", **fit_kwargs):
    """`model.fit` from optimizer step `start_step` to `total_steps` on `dataset`, which must already
    be positioned after the batches trained on; a finished run is not trained again. A
    `tf.data.Dataset` is cut to the steps left; a distributed one must end there itself.

    Keras epochs count from `start_step // steps_per_epoch` (a resume inside an epoch runs a
    short first epoch); `StepLimit` ends the last one at `total_steps`. `resumed` (default:
    `start_step > 0`) says whether `start_step` was restored, for the "Resuming" line.

    A `DivergenceGuard(on_nonfinite)` runs before every other callback but `StepLimit`: with
    "stop", a non-finite loss raises `ValueError` before any checkpoint of that state is saved
    (so the caller's final save is never reached); the `ResumableCheckpoint` among `callbacks`
    is named in its message.

    Returns:
        the `History`, with `start_step` set.
    """
    if start_step >= total_steps:
        print(f"{output_dir or 'The run'} holds a finished run "
              f"(step {start_step} of {total_steps}); not training again. Delete the folder (or "
              "pass a new --output_dir) to retrain.")
        history = keras.callbacks.History()
        history.set_model(model)
        history.epoch = []
    else:
        initial_epoch = start_step // steps_per_epoch
        epochs = initial_epoch + math.ceil((total_steps - start_step) / steps_per_epoch)
        if start_step if resumed is None else resumed:
            print(f"Resuming {what} from step {start_step} of {total_steps} (epoch "
                  f"{initial_epoch + 1} of {math.ceil(total_steps / steps_per_epoch)}).")
        checkpoint = next((c for c in callbacks if isinstance(c, ResumableCheckpoint)), None)
        guard = DivergenceGuard(on_nonfinite, checkpoint)
        # TF 2.21's MultiDeviceIterator (what a strategy's distributed dataset iterates with)
        # crashes with SIGSEGV (MultiDeviceBuffer::BackgroundThread -> GetNext on a freed
        # iterator) when it is dropped while its prefetch thread is still pulling: in a loop of
        # short fits, within the first few. Keras drops two: the one its "symbolic build" pulls
        # one batch from, skipped without the model's own strategy (the step is built in
        # `strategy.scope()` all the same, compile_model), and the fit's own at its end, which
        # is idle if the data ends with the last step (take; distributed datasets built from a
        # function must end there themselves, as pretraining's do). 150 fits: 0 crashes.
        dataset, spec = _cut(dataset, total_steps - start_step, strategy)
        keras_own = contextlib.nullcontext() if isinstance(strategy, JaxStrategy) else model_without_strategy(model)
        with strategy.scope(), keras_own, _keras_mwms_workaround(model, strategy):
            if isinstance(strategy, JaxStrategy) and spec is not None:
                # Built from the batches' spec, not from a batch of a throwaway iterator (compat.build_for_fit):
                # that one shifts a reshuffling dataset's order by how far it prefetched.
                build_for_fit(model, spec)
            history = model.fit(dataset,
                                initial_epoch=initial_epoch, epochs=epochs,
                                steps_per_epoch=steps_per_epoch, shuffle=False,
                                callbacks=[StepLimit(total_steps), guard] + list(callbacks),
                                **fit_kwargs)
    history.start_step = start_step
    return history


def _cut(dataset, steps, strategy):
    """A dataset positioned at the run's step (a `tf.data.Dataset`, or `ShardBatches`: NumPy batches, no
    TensorFlow) cut to `steps` batches: (what `fit` takes, the batches' `KerasTensor`s). Any other data:
    (it, None). The one place the two kinds differ: tf.data's `element_spec` holds `TensorSpec`s
    (`dtype` a `tf.DType`), ShardBatches' `KerasTensor`s (`dtype` a name), `fit` takes a generator, not
    ShardBatches itself, and ShardBatches are this process's share already (keras.distribution must not
    shard them: it refuses a generator in several processes unless told so)."""
    if not (isinstance(dataset, ShardBatches) or _is_tf_dataset(dataset)):
        return dataset, None
    if isinstance(dataset, ShardBatches) and getattr(strategy, "distribution", None) is not None:
        strategy.distribution.auto_shard_dataset = False
    dataset = dataset.take(steps)
    spec = keras.tree.map_structure(
        lambda s: keras.KerasTensor(tuple(s.shape), keras.backend.standardize_dtype(s.dtype)), dataset.element_spec)
    return (iter(dataset) if isinstance(dataset, ShardBatches) else dataset), spec


@contextlib.contextmanager
def _keras_mwms_workaround(model, strategy):
    """Lets Keras 3.15 `fit` run under MultiWorkerMirroredStrategy (keras-team/keras#20585).

    Each step's logs (scalars, already synchronized across replicas) are reduced with
    `strategy.reduce("MEAN", v, axis=0)`, which the collective strategy fails on for scalars.
    The step functions return them with shape [1] instead; the mean of equal values is the
    value. (Keras's other MWMS bug, its symbolic build's `strategy.reduce` of a nested batch,
    is skipped for every strategy by `fit_from`'s `model_without_strategy`.)
    """
    if not isinstance(strategy, JaxStrategy) and isinstance(strategy, _tf().distribute.MultiWorkerMirroredStrategy):
        for name in ("train_step", "test_step"):
            if not getattr(getattr(model, name), "_keras_bert_rank1", False):
                setattr(model, name, _rank1_logs(getattr(model, name)))
    yield


def _rank1_logs(step_fn):
    tf = _tf()

    def step(data):
        return {k: tf.reshape(v, [1]) if v.shape.rank == 0 else v
                for k, v in step_fn(data).items()}
    step._keras_bert_rank1 = True  # pylint: disable=protected-access
    return step


def _tf():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    return tf


def tensorboard_callback(output_dir):
    """Keras's TensorBoard callback writing epoch curves to `output_dir/logs` (train/, validation/), or None
    where TensorFlow is not installed (it writes with TensorFlow; a JAX run trains without it), said in one line.

    Epoch summaries are indexed by the Keras epoch, which a resumed run continues; per-batch
    ones are not written, as Keras numbers those from 0 again after a resume.
    """
    if importlib.util.find_spec("tensorflow") is None:
        print(f"No TensorBoard logs: TensorBoard needs TensorFlow (pip install tensorflow-cpu); the curves are in "
              f"{os.path.join(output_dir, 'training_log.csv')} and curves.png.")
        return None
    return keras.callbacks.TensorBoard(os.path.join(output_dir, "logs"), update_freq="epoch",
                                       write_graph=False)
