"""What pretraining from scratch takes from a model family's record (`tools/pretrain.py --family`).

Read off the record, never keyed on its name: its tokenizer kind, whether it trains next-sentence pairs,
its masking rate, and the config it pretrains: a `BertConfig` with the fields its Hugging Face config
implies (RoBERTa's positions after `pad_token_id + 1`), or its own config class in the given shape
(the record's `pretraining_config`: ModernBERT).
"""

import dataclasses

from keras_bert.config import BertConfig
from keras_bert.models.families import FAMILIES


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
    known = [n for n, f in FAMILIES.items() if f.config_class is BertConfig or f.pretraining_config is not None]
    if name not in known:  # a family with its own config class needs its record's `pretraining_config`
        raise ValueError(f"{flag} {name!r}: pretraining from scratch knows the families {', '.join(known)}.")
    family = FAMILIES[name]
    return FamilyDefaults(name, family.tokenizer, "on" if family.next_sentence else "off", family.mask_rate)
