"""RunConfig: how a training run runs (folder, hardware, precision, checkpoints), not what it trains."""

import dataclasses
import numbers
import os

from keras_bert.choices import JIT_MODES, PRECISIONS, STRATEGIES

# Integer fields and their least value; a bool, a float (2.5 was truncated to 2), a string or NaN is refused.
INTEGER_FIELDS = {"seed": 0, "gradient_accumulation_steps": 1, "checkpoint_every_steps": 0,
                  "checkpoint_every_epochs": 1, "keep_checkpoints": 1, "verbose": 0}
MAX_SEED = 2**32 - 1  # numpy's seed range (keras.utils.set_random_seed seeds numpy)


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """The settings pretraining and fine-tuning share; each loop takes one (`run=`).

    Args:
        output_dir: the run folder (checkpoints, logs, the trained model); None: nothing is
            written and nothing resumes.
        strategy: a `tf.distribute.Strategy`, a `JaxStrategy` or a `get_strategy` name ("auto",
            "default"; TensorFlow: "cpu", "mirrored", "multi_worker", "tpu"; JAX: "data_parallel",
            "model_parallel"); None: "auto".
        mixed_precision: "off", "bf16" or "fp16".
        jit_compile: "auto", "on" or "off" (XLA).
        seed: seed of new weights, dropout and the data order.
        gradient_accumulation_steps: run each batch as this many micro-batches, one optimizer step.
        checkpoint_every_steps: fine-tuning checkpoint interval in steps besides epoch ends
            (0: epoch ends only). Pretraining checkpoints every `checkpoint_every_epochs`.
        checkpoint_every_epochs: pretraining checkpoint interval in Keras epochs.
        keep_checkpoints: checkpoints kept on disk.
        verbose: Keras verbosity (0 silent, 1 progress bar, 2 a line per epoch).
        on_nonfinite: a step whose loss is not finite (a diverging run): "stop" (raise
            `ValueError` naming the step; the last good checkpoint is kept and no final model is
            written) or "skip" (its update is not applied; training goes on, but 10 skipped steps
            in a row stop it, and a final model that predicts non-finite values is never saved).

    Example:
        >>> run = RunConfig(output_dir="runs/sst2", mixed_precision="bf16", seed=1)
        >>> finetune_task("classification", "bert/", "train.csv", "dev.csv", run=run)  # doctest: +SKIP
    """

    output_dir: str = None
    strategy: object = None
    mixed_precision: str = "off"
    jit_compile: str = "auto"
    seed: int = 0
    gradient_accumulation_steps: int = 1
    checkpoint_every_steps: int = 500
    checkpoint_every_epochs: int = 1
    keep_checkpoints: int = 2
    verbose: int = 1
    on_nonfinite: str = "stop"

    def __post_init__(self):
        for name, least in INTEGER_FIELDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ValueError(f"{name}={value!r} (--{name}) must be an integer, not "
                                 f"{type(value).__name__}; pass a whole number >= {least}.")
            if value < least:
                raise ValueError(f"{name}={value} (--{name}) must be at least {least}.")
        if self.seed > MAX_SEED:
            raise ValueError(f"seed={self.seed} (--seed) must be at most 2**32 - 1 (numpy's seed range).")
        if self.verbose > 2:
            raise ValueError(f"verbose={self.verbose} must be 0 (silent), 1 (progress bar) or 2 (a line per epoch).")
        if self.output_dir is not None and not isinstance(self.output_dir, (str, os.PathLike)):
            raise ValueError(f"output_dir={self.output_dir!r} (--output_dir) must be a folder path (str) or None.")
        if isinstance(self.strategy, str) and self.strategy not in STRATEGIES:
            raise ValueError(f"strategy={self.strategy!r} (--strategy) is not one of {list(STRATEGIES)}.")
        if self.mixed_precision not in PRECISIONS:
            raise ValueError(f"mixed_precision={self.mixed_precision!r} (--mixed_precision) is not one of "
                             f"{sorted(PRECISIONS)}.")
        if self.on_nonfinite not in ("stop", "skip"):
            raise ValueError(f"on_nonfinite={self.on_nonfinite!r} (--on_nonfinite) is not one of "
                             "['stop', 'skip'].")
        if self.jit_compile not in JIT_MODES:
            raise ValueError(f"jit_compile={self.jit_compile!r} (--jit_compile) is not one of {JIT_MODES}.")

    def replace(self, **changes):
        """A copy with `changes`."""
        return dataclasses.replace(self, **changes)

    def check_batch_size(self, batch_size):
        """Refuses a batch that does not split into `gradient_accumulation_steps` equal micro-batches."""
        if batch_size % int(self.gradient_accumulation_steps):
            raise ValueError(f"batch_size={batch_size} cannot be split into gradient_accumulation_steps="
                             f"{self.gradient_accumulation_steps} equal micro-batches; use a multiple of it.")
