"""What pretraining from scratch takes from a model family's record (`tools/pretrain.py --family`).

Read off the record, never keyed on its name: its tokenizer kind, whether it trains next-sentence pairs,
and the config fields its Hugging Face config implies (RoBERTa's positions after `pad_token_id + 1`).
"""

import dataclasses

from keras_bert.config import BertConfig
from keras_bert.models.families import FAMILIES


@dataclasses.dataclass(frozen=True)
class FamilyDefaults:
    """A family's pretraining defaults: `tokenizer` kind and `next_sentence` ("on"/"off")."""

    name: str
    tokenizer: str
    next_sentence: str

    def config(self, config, pad_id):
        """`config` (a `BertConfig`) as this family's model: its family, one token type where it trains no
        sentence pairs, and its HF config's fields (positions after `pad_id + 1` for RoBERTa), with
        `max_position_embeddings` grown by the position offset so the same lengths still fit."""
        family = FAMILIES[self.name]
        fields = {"family": self.name}
        if self.next_sentence == "off":
            fields["type_vocab_size"] = 1
        if family.hf_config_fields:
            fields.update(family.hf_config_fields(dict(config.to_huggingface_dict(), pad_token_id=pad_id)))
        offset = fields.get("position_offset", config.position_offset) - config.position_offset
        return config.replace(max_position_embeddings=config.max_position_embeddings + offset, **fields)


def pretraining_defaults(name, flag="--family"):
    """The `FamilyDefaults` of family `name`; one line naming `flag` and the families for any other."""
    family = FAMILIES.get(name)
    if family is None or family.config_class is not BertConfig:  # others build from their own configs
        known = [n for n, f in FAMILIES.items() if f.config_class is BertConfig]
        raise ValueError(f"{flag} {name!r}: pretraining from scratch knows the families {', '.join(known)}.")
    return FamilyDefaults(name, family.tokenizer, "on" if family.next_sentence else "off")
