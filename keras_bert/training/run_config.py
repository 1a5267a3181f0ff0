"""RunConfig: how a training run runs (folder, hardware, precision, checkpoints), not what it trains."""

import dataclasses

from keras_bert.choices import JIT_MODES, PRECISIONS


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """The settings pretraining and fine-tuning share; each loop takes one (`run=`).

    Args:
        output_dir: the run folder (checkpoints, logs, the trained model); None: nothing is
            written and nothing resumes.
        strategy: a `tf.distribute.Strategy` or a `get_strategy` name ("auto", "cpu",
            "mirrored", "multi_worker_mirrored", "tpu"); None: "auto".
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
            written) or "skip" (its update is not applied; training goes on).

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
        if self.mixed_precision not in PRECISIONS:
            raise ValueError(f"mixed_precision={self.mixed_precision!r} (--mixed_precision) is not one of "
                             f"{sorted(PRECISIONS)}.")
        if self.on_nonfinite not in ("stop", "skip"):
            raise ValueError(f"on_nonfinite={self.on_nonfinite!r} (--on_nonfinite) is not one of "
                             "['stop', 'skip'].")
        if self.jit_compile not in JIT_MODES:
            raise ValueError(f"jit_compile={self.jit_compile!r} (--jit_compile) is not one of {JIT_MODES}.")
        for name in ("gradient_accumulation_steps", "checkpoint_every_epochs", "keep_checkpoints"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name}={getattr(self, name)} (--{name}) must be at least 1.")
        if int(self.checkpoint_every_steps) < 0:
            raise ValueError(f"checkpoint_every_steps={self.checkpoint_every_steps} must be >= 0.")

    def replace(self, **changes):
        """A copy with `changes`."""
        return dataclasses.replace(self, **changes)

    def check_batch_size(self, batch_size):
        """Refuses a batch that does not split into `gradient_accumulation_steps` equal micro-batches."""
        if batch_size % int(self.gradient_accumulation_steps):
            raise ValueError(f"batch_size={batch_size} cannot be split into gradient_accumulation_steps="
                             f"{self.gradient_accumulation_steps} equal micro-batches; use a multiple of it.")
