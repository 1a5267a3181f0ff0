"""The run loop's train step: gradient accumulation (one optimizer step from K micro-batches of
each batch, run one after another), gradients summed over the replicas before they are clipped."""

import keras

from keras_bert.compat import compute_training_loss, jax_metrics_update, track_loss


def accumulate_gradients(model, steps):
    """Makes `model.fit` split every batch into `steps` micro-batches and take one optimizer step.

    The micro-batches run in sequence (a `tf.while_loop`), so a step holds the activations of
    one micro-batch of `B / steps` examples at a time; their gradients are averaged and
    applied once, so the step, its global-norm clipping, weight decay, AdamW or LAMB update,
    loss scaling (fp16) and learning-rate schedule see one batch of `B`, as without
    accumulation. The optimizer step, the data (batches of `B`), checkpoints and resume keep
    their meaning: `iterations` counts batches of `B`.

    The update equals the big batch's when the loss is a mean over examples. A loss averaged
    over a varying number of items per batch (BERT's masked-LM loss: the mean over the batch's
    masked positions) is averaged per micro-batch, as each replica does under `tf.distribute`;
    the two agree when the micro-batches hold equal numbers of masked tokens. A batch whose
    size `steps` does not divide (an epoch's last, partial batch) runs in one pass.

    Why not Keras's own `Optimizer(gradient_accumulation_steps=K)` (Keras 3.15): it counts
    every micro-batch as a Keras step and its learning-rate schedule sees micro-steps (the
    warmup and decay would run K times too fast), and under MirroredStrategy its `ops.cond`
    holds the cross-replica merge of the update step (see tests/training/test_gradient_accumulation.py).

    With `steps` 1 too, the step is this one, not Keras's: the optimizer sees dense gradients
    summed over the replicas (`apply_summed_gradients`), so a run on several replicas or
    workers takes one device's steps.

    Args:
        model: a compiled Keras model (TensorFlow or JAX backend); its `train_step` is replaced.
        steps: micro-batches per batch (1: no accumulation).

    Example:
        >>> model.compile(optimizer=create_optimizer(1e-4), loss=loss)
        >>> accumulate_gradients(model, 4)  # a batch of 32 runs as 4 micro-batches of 8
        >>> model.fit(dataset.batch(32))
    """
    steps = int(steps)
    if steps < 1:
        raise ValueError(f"gradient_accumulation_steps must be a positive integer, got {steps}.")
    if getattr(model.optimizer, "gradient_accumulation_steps", None):
        raise ValueError("The optimizer accumulates gradients itself (gradient_accumulation_steps="
                         f"{model.optimizer.gradient_accumulation_steps}); use one of the two.")
    if keras.backend.backend() == "jax":  # Keras's own step sums a data-parallel batch's gradients before clipping
        if steps > 1:
            model.train_step = lambda state, data: _jax_train_step(model, steps, state, data)
        return
    model.train_step = lambda data: _train_step(model, steps, data)


def apply_summed_gradients(optimizer, gradients, variables):
    """One optimizer step on the dense sum of the replicas' `gradients`, as on one device.

    Keras 3.15's TensorFlow optimizer clips (`global_clipnorm`, BERT's 1.0) each replica's
    gradients, its share of the batch, before it sums them across replicas; and it takes the
    norm of an embedding's `IndexedSlices` gradient over its rows unsummed (a token seen twice
    counts twice). Measured on 2 replicas (2 workers or 2 logical CPUs), 40 steps of tiny
    pretraining: per-step losses 2.3e-3 (relative) from one device's; 9e-5 with the sum
    clipped; 2.7e-7 (round-off) with dense gradients too. So the gradients are made dense and
    summed first; replica 0 passes the sum on and the others zeros (times the sum, so a
    non-finite gradient shows on every replica): Keras clips the sum on replica 0 and its own
    all-reduce adds exact zeros. The cost: a second all-reduce per step. Keras's optimizer
    applies only in a replica context (its `maybe_merge_call`s), so its one all-reduce cannot
    be moved before its clipping from outside.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    gradients = [None if g is None else tf.convert_to_tensor(g) for g in gradients]
    context = tf.distribute.get_replica_context()
    if context is not None and context.num_replicas_in_sync > 1:
        present = [i for i, g in enumerate(gradients) if g is not None]
        summed = context.all_reduce(tf.distribute.ReduceOp.SUM, [gradients[i] for i in present])
        first = tf.equal(context.replica_id_in_sync_group, 0)
        for i, gradient in zip(present, summed):
            gradients[i] = gradient * tf.cast(first, gradient.dtype)
    optimizer.apply_gradients(zip(gradients, variables))


def _micro_batches(data, steps):
    """`(x, y, sample_weight)` with each tensor reshaped to `[k, batch / k, ...]` and `k`."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    batch = tf.shape(tf.nest.flatten(data[0])[0])[0]
    count = tf.where(batch % steps == 0, steps, 1)

    def split(tensor):
        if tensor is None:
            return None
        return tf.reshape(tensor, tf.concat([[count, batch // count], tf.shape(tensor)[1:]], 0))

    return tf.nest.map_structure(split, data), count


def _train_step(model, steps, data):
    # Keras's TensorFlow `train_step` (keras/src/backend/tensorflow/trainer.py), once per
    # micro-batch, through the same private touchpoints it uses (keras_bert/compat.py).
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    variables = model.trainable_variables
    if steps == 1:  # the logs are what the model's `compute_metrics` returns, as in Keras's step
        gradients, logs = _gradients(model, variables, *keras.utils.unpack_x_y_sample_weight(data))
        apply_summed_gradients(model.optimizer, gradients, variables)
        return logs
    micro, count = _micro_batches(keras.utils.unpack_x_y_sample_weight(data), steps)
    weight = 1.0 / tf.cast(count, tf.float32)

    def body(index, sums):
        x, y, sample_weight = tf.nest.map_structure(
            lambda t: None if t is None else t[index], micro)
        gradients, _ = _gradients(model, variables, x, y, sample_weight)
        return index + 1, [s + tf.cast(tf.convert_to_tensor(g), s.dtype) * weight
                           for s, g in zip(sums, gradients)]

    zeros = [tf.zeros(v.shape, v.dtype) for v in variables]
    _, gradients = tf.while_loop(lambda index, _: index < count, body, (tf.constant(0), zeros),
                                 parallel_iterations=1)
    apply_summed_gradients(model.optimizer, gradients, variables)
    return model.get_metrics_result()


def _jax_train_step(model, steps, state, data):
    # Keras's JAX `train_step` (keras/src/backend/jax/trainer.py), once per micro-batch in a
    # `fori_loop`, the gradients averaged and applied once; stateless, as JAX's trainer wants it.
    import jax  # pylint: disable=import-outside-toplevel

    trainable, non_trainable, optimizer_variables, metrics_variables = state
    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
    batch = keras.tree.flatten(x)[0].shape[0]
    count = steps if batch % steps == 0 else 1  # shapes are static under jit

    # (count, batch / count, ...) for each tensor
    micro = jax.tree_util.tree_map(lambda t: t.reshape((count, batch // count) + t.shape[1:]),
                                   (x, y, sample_weight))
    grad_fn = jax.value_and_grad(model.compute_loss_and_updates, has_aux=True)

    def body(index, carry):
        sums, non_trainable, metrics_variables = carry
        x, y, sample_weight = jax.tree_util.tree_map(lambda t: t[index], micro)
        (_, (loss, y_pred, non_trainable, metrics_variables)), gradients = grad_fn(
            trainable, non_trainable, metrics_variables, x, y, sample_weight, training=True,
            optimizer_variables=optimizer_variables)
        logs, metrics_variables = jax_metrics_update(model, metrics_variables, loss, x, y, y_pred, sample_weight)
        return ([s + g / count for s, g in zip(sums, gradients)], non_trainable, metrics_variables), logs

    # The last micro-batch outside the loop: its logs are the step's (the model's own `compute_metrics`
    # keys; a loop carries no dict it has not seen yet).
    zeros = [jax.numpy.zeros(v.shape, v.dtype) for v in trainable]
    carry = jax.lax.fori_loop(0, count - 1, lambda index, carry: body(index, carry)[0],
                              (zeros, non_trainable, metrics_variables))
    (gradients, non_trainable, metrics_variables), logs = body(count - 1, carry)
    trainable, optimizer_variables = model.optimizer.stateless_apply(optimizer_variables, gradients, trainable)
    return logs, (trainable, non_trainable, optimizer_variables, metrics_variables)


def _gradients(model, variables, x, y, sample_weight):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    with tf.GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = compute_training_loss(model, x, y, y_pred, sample_weight)
        track_loss(model, loss * tf.distribute.get_strategy().num_replicas_in_sync,
                   tf.shape(tf.nest.flatten(x)[0])[0])
        loss = model.optimizer.scale_loss(loss)
    gradients = tape.gradient(loss, variables)
    return gradients, model.compute_metrics(x, y, y_pred, sample_weight=sample_weight)
