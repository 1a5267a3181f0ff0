"""BERT's optimizers on Keras's own classes: AdamW / LAMB, warmup + polynomial decay, clipping."""

import keras

from keras_bert.choices import OPTIMIZERS  # noqa: F401  (re-exported)
from keras_bert.training.linear_warmup import LinearWarmup

# Matched (re.search) against each variable's short name: LayerNormalization's
# `gamma`/`beta`, every Dense `bias` and the MLM head's `output_bias`. Google's
# BERT excludes "LayerNorm", "layer_norm" and "bias"; our LayerNorm variables are
# named gamma/beta, so those two names carry the exclusion here.
WEIGHT_DECAY_EXCLUDE = ("bias", "gamma", "beta", "LayerNorm", "layer_norm")


def bert_schedule(learning_rate, total_steps, warmup_steps=0, end_learning_rate=0.0, power=1.0):
    """BERT's learning rate: linear warmup to `learning_rate`, then polynomial decay.

    Args:
        learning_rate: peak rate, reached at `warmup_steps`.
        total_steps: the step at which the decay reaches `end_learning_rate`.
        warmup_steps: linear warmup steps from 0.
        end_learning_rate: final rate (BERT: 0).
        power: 1.0 for linear decay (BERT), other values for polynomial decay.

    Example:
        >>> schedule = bert_schedule(1e-4, total_steps=1000, warmup_steps=100)
        >>> [round(float(schedule(s)), 7) for s in (0, 50, 100, 550, 1000)]
        [0.0, 5e-05, 9e-05, 4.5e-05, 0.0]
    """
    if int(total_steps) <= 0:
        raise ValueError(f"total_steps must be a positive number of training steps, got {total_steps}.")
    if not 0 <= int(warmup_steps) <= int(total_steps):
        raise ValueError(
            f"warmup_steps={warmup_steps} must lie in [0, total_steps={total_steps}]; "
            "BERT warms up for about 1-10 % of the steps.")
    decay = keras.optimizers.schedules.PolynomialDecay(
        float(learning_rate), decay_steps=int(total_steps),
        end_learning_rate=float(end_learning_rate), power=float(power))
    return LinearWarmup(decay, warmup_steps=int(warmup_steps))


def create_optimizer(learning_rate=1e-4, total_steps=None, warmup_steps=0, optimizer="adamw",
                     weight_decay=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-6,
                     global_clipnorm=1.0, power=1.0,
                     exclude_from_weight_decay=WEIGHT_DECAY_EXCLUDE):
    """AdamW (or LAMB) with BERT's settings.

    Decoupled weight decay (Keras applies `w -= lr * weight_decay * w`, as Google's
    `AdamWeightDecayOptimizer` does) is skipped for LayerNorm and bias variables,
    gradients are clipped to a global norm of 1.0, and the learning rate follows
    `bert_schedule` when `total_steps` is given (a constant rate otherwise).

    Args:
        learning_rate: peak learning rate (float) or a Keras schedule.
        total_steps: training steps, for the decay; None keeps the rate constant.
        warmup_steps: linear warmup steps (only with `total_steps`).
        optimizer: "adamw" (BERT) or "lamb" (large batches, You et al. 2019).
        weight_decay: decoupled weight decay rate.
        beta_1, beta_2, epsilon: Adam moments (BERT: 0.9, 0.999, 1e-6).
        global_clipnorm: clip the gradients' global norm to this; None disables.
        power: decay exponent (1.0: linear).
        exclude_from_weight_decay: variable-name patterns that get no weight decay.

    Example:
        >>> opt = create_optimizer(1e-4, total_steps=10000, warmup_steps=100)
        >>> model.compile(optimizer=opt)
    """
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer={optimizer!r} is not supported; expected one of {OPTIMIZERS}.")
    is_schedule = isinstance(learning_rate, keras.optimizers.schedules.LearningRateSchedule)
    if not is_schedule and not 0 < float(learning_rate) < float("inf"):
        raise ValueError(f"learning_rate (--learning_rate) must be a number > 0, got {learning_rate} "
                         "(BERT: 1e-4 pretraining, 2e-5 .. 5e-5 fine-tuning).")
    if not 0 <= float(weight_decay) < float("inf"):
        raise ValueError(f"weight_decay (--weight_decay) must be >= 0, got {weight_decay} (BERT: 0.01).")
    if total_steps is not None and not is_schedule:
        learning_rate = bert_schedule(learning_rate, total_steps, warmup_steps, power=power)
    elif warmup_steps:
        raise ValueError("warmup_steps needs total_steps (the schedule's length); pass both.")
    opt = (keras.optimizers.AdamW if optimizer == "adamw" else keras.optimizers.Lamb)(
        learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
        weight_decay=weight_decay, global_clipnorm=global_clipnorm)
    if weight_decay and exclude_from_weight_decay:
        opt.exclude_from_weight_decay(var_names=list(exclude_from_weight_decay))
    return opt
