"""The divergence guard: a non-finite loss stops the run (or, if asked, its update is skipped)."""

import math

import keras
import numpy as np

NONFINITE_MODES = ("stop", "skip")
# A finite loss this many times the run's first one (itself counted as at least 10) has exploded:
# cross-entropy starts near ln(classes) and never legitimately grows 1000-fold; a regression's
# squared error neither. Measured: --learning_rate 1000 on a tiny BERT went 7.6 -> 13,000 at step 3
# and -> 1e19 later, all finite, and was saved as a success.
EXPLOSION_FACTOR = 1000
# With "skip", this many skipped steps in a row stop the run: the weights can no longer train (a
# learning rate that blew them up makes every later loss NaN; skipping them all saved a model
# that predicts NaN). One bad batch now and then is skipped; a run that trains no more is not.
MAX_SKIPPED_IN_A_ROW = 10


class DivergenceGuard(keras.callbacks.Callback):
    """Raises `ValueError` at the first batch whose loss is not finite ("stop"), or warns ("skip")
    and stops after `MAX_SKIPPED_IN_A_ROW` skipped steps in a row. A finite loss over
    `EXPLOSION_FACTOR` times the run's first one stops the run at once ("stop") or once it has
    lasted `MAX_SKIPPED_IN_A_ROW` steps ("skip": before, --learning_rate 1000 saved a model with
    an MSE of 4.5e35 as a success).

    Placed before the checkpoint callback, it raises before that batch's state can be saved: the
    exception leaves `fit` at once, so no step, epoch or train-end checkpoint of the diverged
    state is written and the caller never reaches its final save (`model.keras`, `final/`). A
    loss can stay finite one step after the weights stopped being so; the guard therefore also
    checks the weights before each checkpoint save (`checkpoint`'s steps, epoch and train ends).

    Keras logs the epoch's running mean of the loss, so the first non-finite value is the batch
    that diverged. With "skip" (`skip_nonfinite_updates` leaves the weights unchanged on such a
    step), the guard only reports the first skipped step of an epoch.

    Args:
        mode: "stop" or "skip".
        checkpoint: the run's `ResumableCheckpoint`, or None (named in the message, and its
            saves are guarded).
        flag: the option to lower, named in the message.

    Example:
        >>> model.fit(dataset, callbacks=[DivergenceGuard("stop", checkpoint), checkpoint])
    """

    def __init__(self, mode="stop", checkpoint=None, flag="--learning_rate"):
        super().__init__()
        check_mode(mode)
        self.mode = mode
        self.checkpoint = checkpoint
        self.flag = flag
        self._reported_epoch = None
        self._epoch = None
        self._loss = None
        self._first_loss = None
        self._exploded = 0  # steps in a row whose (finite) loss exploded

    def _step(self):
        return int(self.model.optimizer.iterations.numpy())

    def _kept(self, first_bad):
        checkpoint = self.checkpoint
        if checkpoint is None:
            return "no checkpoint was written (no output folder)"
        # The loss of step k is computed on the weights after step k - 1.
        saved = checkpoint.last_saved_step
        if saved and saved >= first_bad:
            removed = f"the checkpoint of step {saved} already held the diverged weights and was removed; "
            saved = checkpoint.discard_from(first_bad)
        else:
            removed = ""
        if not saved:
            return f"{removed}no good checkpoint of this run is left in {checkpoint.directory}"
        return (f"{removed}the last good checkpoint (step {saved}) is kept in {checkpoint.directory}; a run "
                f"with a lower {self.flag} resumes from it")

    def _diverged(self, what, skippable=True, first_bad=None):
        # A finite loss that exploded is of the weights the previous step wrote: they are bad too.
        # (A non-finite loss may come from the batch itself: that checkpoint stays.)
        if first_bad is None:
            first_bad = self._step() if skippable else self._step() - 1
        skip = " (or pass --on_nonfinite skip to skip such steps)" if skippable and self.mode == "stop" and \
            keras.backend.backend() == "tensorflow" else ""  # (JAX has no skipping step)
        raise ValueError(
            f"Training diverged at step {self._step()}: {what}. Lower {self.flag}{skip}; {self._kept(first_bad)}; "
            "nothing of the diverged state was saved.")

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None:
            value = self._loss = float(np.asarray(loss).reshape(-1)[0])
            if self._first_loss is None and math.isfinite(value):
                self._first_loss = value
            elif math.isfinite(value) and value > EXPLOSION_FACTOR * max(self._first_loss, 10.0):
                self._exploded += 1
                what = f"the loss is {value:.4g}, over {EXPLOSION_FACTOR} times the run's first {self._first_loss:.4g}"
                if self.mode == "stop":
                    self._diverged(what, skippable=False)
                if self._exploded >= MAX_SKIPPED_IN_A_ROW:  # "skip" skips non-finite steps, not these
                    self._diverged(f"{what}, for {self._exploded} steps in a row (--on_nonfinite skip skips only "
                                   "non-finite steps)", skippable=False, first_bad=self._step() - self._exploded)
            else:
                self._exploded = 0
            if not math.isfinite(value):
                if self.mode == "stop":
                    self._diverged(f"the loss is {value}")
                self._check_skipped()
                if self._reported_epoch != self._epoch:
                    self._reported_epoch = self._epoch
                    print(f"Step {self._step()}: the loss is {value}; its update was skipped "
                          f"(--on_nonfinite skip); the epoch's mean loss stays {value}.")
        checkpoint = self.checkpoint
        if checkpoint is not None and checkpoint.every_n_steps \
                and self._step() % checkpoint.every_n_steps == 0:
            self._check_weights()

    def on_epoch_end(self, epoch, logs=None):
        self._check_weights()

    def _check_skipped(self):
        skipped = getattr(self.model.optimizer, "_keras_bert_skipped_in_a_row", None)
        skipped = int(skipped().numpy()) if skipped is not None else 0
        if skipped >= MAX_SKIPPED_IN_A_ROW:
            # The weights every skipped step started from were written by the step before them.
            self._diverged(f"the last {skipped} steps had a non-finite loss and were skipped (--on_nonfinite skip "
                           f"stops after {MAX_SKIPPED_IN_A_ROW} in a row: the weights no longer train)",
                           skippable=False, first_bad=self._step() - skipped)

    def on_train_end(self, logs=None):
        self._check_weights()

    def _check_weights(self):
        for variable in self.model.trainable_variables:
            if not np.isfinite(keras.ops.convert_to_numpy(variable)).all():
                loss = "" if self._loss is None else f" (the loss is {self._loss:.4g})"
                self._diverged(f"weight {variable.path} is not finite{loss}")


def check_mode(mode):
    if mode not in NONFINITE_MODES:
        raise ValueError(f"on_nonfinite={mode!r} (--on_nonfinite) is not one of {list(NONFINITE_MODES)}.")
    return mode


def skip_nonfinite_updates(optimizer):
    """Makes `optimizer` leave the weights and its slots unchanged on a step with non-finite gradients.

    The step still counts (`iterations` advances), so the data position, the learning-rate
    schedule and `StepLimit` keep their meaning. A loss-scaling optimizer (fp16) already skips
    such steps (and lowers its scale), so it is left as it is. Under a strategy the test and
    its `cond` run in the cross-replica context, as Keras's `LossScaleOptimizer` does, since a
    `cond` in the replica context cannot hold the update's `merge_call`.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    if isinstance(optimizer, keras.optimizers.LossScaleOptimizer) or \
            getattr(optimizer, "_keras_bert_skips_nonfinite", False):
        return optimizer
    apply = optimizer.apply

    def finite(grads):
        return tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g in grads if g is not None])

    # Steps skipped in a row (the guard's limit); not tracked by the optimizer, so checkpoints and
    # .keras files keep their contents. Created in the strategy's scope (compile_model).
    skipped = tf.Variable(0, trainable=False, dtype=tf.int64, name="skipped_in_a_row",
                          aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)

    def skip():
        optimizer.iterations.assign_add(1)
        skipped.assign_add(1)

    def applied(value):
        skipped.assign(0)
        return value

    def skipping_apply(grads, trainable_variables=None):
        grads = list(grads)
        if not optimizer.built and trainable_variables is not None:
            optimizer.build(list(trainable_variables))
        if tf.__internal__.distribute.strategy_supports_no_merge_call():
            tf.cond(finite(grads), lambda: _no_value(applied(apply(grads, trainable_variables))),
                    lambda: _no_value(skip()))
            return

        def cross_replica(distribution, grads, trainable_variables):
            per_replica = distribution.extended.call_for_each_replica(finite, args=(grads,))
            ok = tf.reduce_all(distribution.experimental_local_results(per_replica))

            def apply_fn():
                distribution.extended.call_for_each_replica(apply, args=(grads, trainable_variables))
                skipped.assign(0)

            tf.cond(ok, lambda: _no_value(apply_fn()), lambda: _no_value(skip()))

        tf.distribute.get_replica_context().merge_call(cross_replica, args=(grads, trainable_variables))

    optimizer.apply = skipping_apply
    optimizer._keras_bert_skips_nonfinite = True  # pylint: disable=protected-access
    optimizer._keras_bert_skipped_in_a_row = lambda: skipped  # pylint: disable=protected-access
    return optimizer


def _no_value(_):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    return tf.constant(0)


def check_predictions(model, dataset, flag="--learning_rate"):
    """Raises `ValueError` if `model` predicts a non-finite value on `dataset`'s first batch.

    The last check before a trained model is saved: with "skip", finite weights can still
    predict NaN (a step that blew them up was finite; every later one was skipped), and such a
    model is not a success.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    batch = next(iter(dataset.take(1)))
    features = batch[0] if isinstance(batch, tuple) else batch
    outputs = [keras.ops.convert_to_numpy(tf.cast(o, tf.float32)).reshape(-1)
               for o in tf.nest.flatten(model(features, training=False))]
    bad = [values[~np.isfinite(values)] for values in outputs if not np.isfinite(values).all()]
    if bad:
        raise ValueError(f"The trained model predicts non-finite values ({bad[0][0]}) on the first training batch, "
                         f"so it is not saved: the run diverged. Lower {flag}, and delete the run folder or "
                         "pass a new --output_dir (its checkpoints hold the diverged weights).")
