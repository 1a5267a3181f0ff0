"""The paper's second pretraining phase: the last steps on longer sequences (Devlin et al. 2018, A.2)."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class SecondPhase:
    """The last `fraction` of `run_pretraining`'s steps, trained on `train_input` (longer sequences).

    BERT trains 90 % of its steps at sequence length 128 with 20 predictions per sequence,
    then 10 % at 512 with 80, to learn the long position embeddings cheaply. The phases
    share one optimizer (its state and its learning-rate schedule, which is indexed by the
    optimizer step, so it continues across the switch), the weights and the run folder.
    The phase-2 shapes are read from `train_input`'s batches; the model's
    `max_position_embeddings` must cover them. The global batch size stays the same.

    Args:
        train_input: `fn(global_batch_size, input_context)` returning the phase-2 dataset,
            e.g. `pretraining_input(files, tokenizer, seq_length=512, max_predictions_per_seq=80)`.
        fraction: share of `train_steps` in phase 2, in (0, 1); the switch is rounded to a
            whole Keras epoch (`first_step`).

    Example:
        >>> long = pretraining_input(files, tokenizer, seq_length=512, max_predictions_per_seq=80)
        >>> run_pretraining(pretraining_input(files, tokenizer, seq_length=128), "bert_base_uncased",
        ...                 run=RunConfig(output_dir="runs/base"), train_steps=10000,
        ...                 phase2=SecondPhase(long, 0.1))
    """

    train_input: object
    fraction: float = 0.1

    def __post_init__(self):
        if not callable(self.train_input):
            raise ValueError("SecondPhase.train_input must be a function (global_batch_size, "
                             f"input_context) -> dataset, got {type(self.train_input).__name__}.")
        check_fraction(self.fraction)

    def first_step(self, train_steps, steps_per_epoch):
        """The step phase 2 starts at: `train_steps * (1 - fraction)` rounded to a whole epoch.

        A whole epoch, so that no Keras epoch mixes the phases (its logs, evaluation and
        checkpoints describe one phase) and epoch numbers continue across the switch.
        """
        steps_per_epoch = int(steps_per_epoch)
        first = round(train_steps * (1 - self.fraction) / steps_per_epoch) * steps_per_epoch
        if not 0 < first < train_steps:
            raise ValueError(
                f"phase 2 (--phase2_fraction {self.fraction}) of train_steps={train_steps} "
                f"(--train_steps) rounded to whole epochs of {steps_per_epoch} steps "
                f"(--steps_per_epoch) leaves {'phase 1' if first <= 0 else 'phase 2'} no steps; "
                "use more steps, a smaller --steps_per_epoch or another fraction.")
        return first


def check_fraction(fraction):
    """Refuses, in one line naming --phase2_fraction, a phase-2 share of the steps outside (0, 1) (`SecondPhase`'s
    check; tools/pretrain.py makes it before TensorFlow loads)."""
    if not 0 < float(fraction) < 1:
        raise ValueError(f"phase2 fraction (--phase2_fraction) must lie strictly between 0 and 1, "
                         f"got {fraction} (BERT: 0.1).")


def batch_shapes(train_input, global_batch_size):
    """`{"seq_length": s, "max_predictions_per_seq": p}` of `train_input`'s batches (static shapes)."""
    features = train_input(global_batch_size, None).element_spec[0]
    seq_length = features["input_word_ids"].shape[-1]
    predictions = features["masked_lm_positions"].shape[-1]
    if seq_length is None or predictions is None:
        raise ValueError("A two-phase run needs datasets with a static sequence length and number of "
                         "predictions (pretraining_input gives both).")
    return {"seq_length": int(seq_length), "max_predictions_per_seq": int(predictions)}


def check_position_embeddings(seq_lengths, max_position_embeddings):
    """Refuses a phase longer than the model's position embeddings.

    Args:
        seq_lengths: the sequence length of phase 1 and, in a two-phase run, of phase 2.
        max_position_embeddings: the model's.
    """
    for flag, seq_length in zip(("--seq_length", "--phase2_seq_length"), seq_lengths):
        if seq_length > max_position_embeddings:
            raise ValueError(
                f"{flag} {seq_length} exceeds the model's max_position_embeddings "
                f"({max_position_embeddings}); use a model whose max_position_embeddings covers "
                f"it or a shorter {flag}.")
