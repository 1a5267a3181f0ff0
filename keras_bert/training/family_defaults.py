"""What pretraining from scratch takes from a model family's record (`tools/pretrain.py --family`).

Read off the record, never keyed on its name: its tokenizer kind, whether it trains next-sentence pairs,
its masking rate, and the config it pretrains: a `BertConfig` with the fields its Hugging Face config
implies (RoBERTa's positions after `pad_token_id + 1`), or its own config class in the given shape
(the record's `pretraining_config`: ModernBERT).
"""

import dataclasses
import math

from keras_bert.config import BertConfig

# `FAMILIES` (keras_bert.models: Keras, TensorFlow) is imported where a family is named: a run of no --family
# is checked (`pretraining_config`) before TensorFlow loads.

# The model pretrained from scratch when no config, preset or checkpoint is given: 2 layers, hidden 128 (Google's
# BERT-Tiny shape). tools/pretrain.py's demo trains it at sequence length 32 (its sentences are short; on 2 busy
# cores a step of 32 such sequences took 0.2-0.4 s, one of 64 x 64 0.8-0.9 s, for the same held-out accuracy per
# token: 0.12 after 600 vs 400) with a vocab learned from the corpus.
SCRATCH_SHAPE = dict(hidden_size=128, num_layers=2, num_heads=2, intermediate_size=512,
                     max_position_embeddings=128, hidden_act="gelu")
DEFAULT_PREDICTIONS = 10  # masked positions per sequence without a family or a count given


@dataclasses.dataclass(frozen=True)
class FamilyDefaults:
    """A family's pretraining defaults: `tokenizer` kind, `next_sentence` ("on"/"off"), `mask_rate`."""

    name: str
    tokenizer: str
    next_sentence: str
    mask_rate: float = 0.15

    def config(self, config, pad_id):
        """`config` (a `BertConfig`: a preset's or the default's shape) as this family's model. A family with its
        own config class: its record's `pretraining_config` of it. Else the `BertConfig` with its family, one token
        type where it trains no sentence pairs, and its HF config's fields (positions after `pad_id + 1` for
        RoBERTa), with `max_position_embeddings` grown by the position offset so the same lengths still fit."""
        from keras_bert.models.families import FAMILIES  # pylint: disable=import-outside-toplevel

        family = FAMILIES[self.name]
        if family.pretraining_config is not None:
            return family.pretraining_config(config, pad_id)
        fields = {"family": self.name}
        if self.next_sentence == "off":
            fields["type_vocab_size"] = 1
        fields.update(family.converter.config_fields_of(dict(config.to_huggingface_dict(), pad_token_id=pad_id)))
        offset = fields.get("position_offset", config.position_offset) - config.position_offset
        return config.replace(max_position_embeddings=config.max_position_embeddings + offset, **fields)


def pretraining_defaults(name, flag="--family"):
    """The `FamilyDefaults` of family `name`; one line naming `flag` and the families for any other."""
    from keras_bert.models.families import FAMILIES  # pylint: disable=import-outside-toplevel

    known = [n for n, f in FAMILIES.items() if f.config_class is BertConfig or f.pretraining_config is not None]
    if name not in known:  # a family with its own config class needs its record's `pretraining_config`
        raise ValueError(f"{flag} {name!r}: pretraining from scratch knows the families {', '.join(known)}.")
    family = FAMILIES[name]
    return FamilyDefaults(name, family.tokenizer, "on" if family.next_sentence else "off", family.mask_rate)


def objective_defaults(family, flags):
    """The pretraining objective with what is not given filled in (`tools/pretrain.py`'s flags).

    `family`'s (a `FamilyDefaults`, or None) next-sentence objective and masking rate; masked positions enough
    for that rate, at least `DEFAULT_PREDICTIONS` (ModernBERT's 30 % of 64 tokens needs 20); with a second
    phase, its share of the steps (default 0.1) and its positions in the same share of its longer sequences.

    Args:
        family: a `FamilyDefaults`, or None.
        flags: the run's settings by name (others are ignored): `seq_length`, and None or 0 where not given:
            `next_sentence`, `masked_lm_prob`, `max_predictions_per_seq`, `phase2_seq_length`,
            `phase2_fraction`, `phase2_max_predictions_per_seq`.

    Returns:
        a dict of those six, given or filled in.

    Example:
        >>> objective_defaults(pretraining_defaults("modernbert"), {"seq_length": 64})["max_predictions_per_seq"]
        20
    """
    seq_length, phase2_seq_length = flags["seq_length"], flags.get("phase2_seq_length") or 0
    next_sentence, masked_lm_prob = flags.get("next_sentence"), flags.get("masked_lm_prob")
    max_predictions_per_seq, phase2_fraction = flags.get("max_predictions_per_seq"), flags.get("phase2_fraction")
    phase2_max_predictions_per_seq = flags.get("phase2_max_predictions_per_seq")
    if family is not None:
        next_sentence = next_sentence or family.next_sentence
        masked_lm_prob = masked_lm_prob or family.mask_rate
    needed = math.ceil(seq_length * masked_lm_prob) if family is not None else 0
    max_predictions_per_seq = max_predictions_per_seq or max(DEFAULT_PREDICTIONS, needed)
    if phase2_seq_length:
        phase2_fraction = phase2_fraction or 0.1
        phase2_max_predictions_per_seq = phase2_max_predictions_per_seq or max(
            1, round(phase2_seq_length * max_predictions_per_seq / seq_length))
    return dict(next_sentence=next_sentence, masked_lm_prob=masked_lm_prob,
                max_predictions_per_seq=max_predictions_per_seq, phase2_seq_length=phase2_seq_length,
                phase2_fraction=phase2_fraction, phase2_max_predictions_per_seq=phase2_max_predictions_per_seq)


def pretraining_config(config, family=None, *, vocab_size, pad_id, phases, global_batch_size, built_vocab=False,
                       mixed_precision="off", **scratch_fields):
    """The config to pretrain, checked against every phase (one line each: positions, the batch's memory).

    Args:
        config: a `BertConfig` (a preset's or a file's), or None: `SCRATCH_SHAPE` at `vocab_size`, with
            `scratch_fields` (e.g. `dropout_rate=0.0`).
        family: a `FamilyDefaults` (None: BERT): the config becomes its model (`FamilyDefaults.config`).
        vocab_size, pad_id: the run's vocabulary (`built_vocab`: one built for the run, which the model follows).
        phases: `(seq_length, max_predictions_per_seq)` of each phase (a `seq_length` of 0: no such phase).
        global_batch_size, mixed_precision: the run's.

    Example:
        >>> pretraining_config(None, vocab_size=4000, pad_id=0, phases=[(32, 10)], global_batch_size=32).hidden_size
        128
    """
    from keras_bert.training.memory_estimate import check_batch_memory  # pylint: disable=import-outside-toplevel
    from keras_bert.training.second_phase import check_position_embeddings  # pylint: disable=import-outside-toplevel

    if config is None:
        config = BertConfig(vocab_size=vocab_size, **dict(SCRATCH_SHAPE, **scratch_fields))
    if built_vocab:
        config = dataclasses.replace(config, vocab_size=vocab_size)
    config = family.config(config, pad_id) if family else config  # RoBERTa: positions after pad + 1
    phases = [(seq_length, predictions) for seq_length, predictions in phases if seq_length]
    check_position_embeddings([seq_length for seq_length, _ in phases], config.max_position_embeddings)
    for seq_length, predictions in phases:
        check_batch_memory(config, global_batch_size, seq_length, predictions, mixed_precision)
    return config
