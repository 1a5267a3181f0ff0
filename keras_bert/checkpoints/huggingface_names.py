"""Hugging Face weight names <-> canonical names, asking the family's converter (its table of names).

A family's converter (`ModelFamily.converter`, `keras_bert/models/bert_converter.py`) holds its names,
one rule a weight or a layer; the task heads' names are the head classes' own (`HF_PREFIX` /
`GOOGLE_PREFIX`: `classifier.weight` is `output_weights`, `[outputs, H]` in both), the same in every family.
"""

from keras_bert.models.families import BERT
from keras_bert.models.heads import HEADS

TASK_HEADS = tuple(rule for head in HEADS if head.HF_PREFIX for rule in (
    (f"{head.HF_PREFIX}.weight", head.GOOGLE_PREFIX + "output_weights", False),
    (f"{head.HF_PREFIX}.bias", head.GOOGLE_PREFIX + "output_bias", False)))


def canonical_name(hf_name, family, suffix=None):
    """(Canonical name, transposed) of `family`'s HF weight `hf_name` in a folder of HF class `...suffix`;
    None for a name the family's files do not hold."""
    return family.converter.canonical_name(hf_name, suffix, TASK_HEADS)


def family_hf_name(canonical, family, suffix=None):
    """(HF name, transposed) of a canonical name, as `family`'s HF class `...suffix` saves it; None: not
    written in that class's file."""
    return family.converter.hf_name(canonical, suffix, TASK_HEADS)


def google_name(hf_name):
    """(Google name, transposed) for a Hugging Face BERT tensor name."""
    return canonical_name(hf_name, BERT)


def huggingface_name(google):
    """(Hugging Face name, transposed) for a Google name, as BertForPreTraining saves it."""
    return family_hf_name(google, BERT)
