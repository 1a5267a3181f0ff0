"""Mixed precision and XLA switches shared by the training entry points."""

import functools

import keras

from keras_bert.choices import JIT_MODES, PRECISIONS  # noqa: F401  (re-exported)


def set_mixed_precision(mode):
    """Sets Keras's global dtype policy; call before building the model.

    "bf16" computes in bfloat16, "fp16" in float16 (Keras then wraps the optimizer
    in a `LossScaleOptimizer` at `compile`); variables stay float32 and the
    models cast logits to float32 before their losses.

    Args:
        mode: "off" (float32), "bf16" or "fp16".

    Returns:
        The policy name set, e.g. "mixed_bfloat16".

    Example:
        >>> set_mixed_precision("bf16")
        'mixed_bfloat16'
    """
    if mode not in PRECISIONS:
        raise ValueError(f"mixed_precision={mode!r} is not supported; expected one of "
                         f"{sorted(PRECISIONS)}.")
    keras.mixed_precision.set_global_policy(PRECISIONS[mode])
    return PRECISIONS[mode]


def resolve_jit_compile(mode, strategy=None, compute_dtype=None):
    """Maps "auto"/"on"/"off" to `compile(jit_compile=...)`.

    "auto" turns XLA on for JAX (always) and for a single-device strategy, on CPU too (on a 2-core
    CPU XLA roughly doubles BERT's training speed: docs/DESIGN.md, known traps), and off
    under multi-replica tf.distribute strategies, as Keras's own "auto" does. It is
    off for bfloat16 on a CPU: oneDNN's bfloat16 matmuls (AVX512_BF16, AMX) outrun
    XLA's CPU dots, which do not use them (`tools/bench_train.py --precision bf16`; the
    numbers: docs/BENCHMARKS.md, train).

    Args:
        mode: "auto", "on" or "off" (booleans are accepted too).
        strategy: the `tf.distribute.Strategy` in use (default: the current one).
        compute_dtype: the model's compute dtype (default: Keras's global dtype policy's).

    Example:
        >>> resolve_jit_compile("auto")
        True
    """
    if isinstance(mode, bool):
        return mode
    if mode not in JIT_MODES:
        raise ValueError(f"jit_compile={mode!r} is not supported; expected one of {JIT_MODES}.")
    if mode != "auto":
        return mode == "on"
    if keras.backend.backend() == "jax":
        return True  # JAX compiles every step with XLA; without it, it runs op by op
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    strategy = strategy or tf.distribute.get_strategy()
    compute_dtype = compute_dtype or keras.config.dtype_policy().compute_dtype
    on_cpu = not (tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("TPU"))
    return strategy.num_replicas_in_sync == 1 and not (compute_dtype == "bfloat16" and on_cpu)


def restores_dtype_policy(function):
    """Decorator: the global dtype policy is put back when `function` returns or raises.

    The training entry points set the policy for the model they build (which keeps it);
    callers building other models afterwards get the policy they had before.
    """
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        previous = keras.config.dtype_policy()
        try:
            return function(*args, **kwargs)
        finally:
            keras.config.set_dtype_policy(previous)
    return wrapper
