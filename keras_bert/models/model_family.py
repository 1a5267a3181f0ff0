"""ModelFamily: what every model family has (its names, classes, converter, tokenizer kind, pretraining).

A family is a folder under `keras_bert/models/` (`electra/`, `distilbert/`, `modernbert/`) holding its record,
its converter (its Hugging Face names as a table: `bert_converter.py`) and, where it is not BERT's, its config
and encoder; a renamed BERT (RoBERTa, XLM-R) is a record in `families.py`. Registration: one line in
`families.FAMILIES` (docs/DESIGN.md, "A model family").
"""

import dataclasses

from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.models.bert_converter import BertConverter
from keras_bert.models.bert_encoder import BertEncoder


def bert_masked_lm_head(config, encoder, dtype=None, name="mlm_head", hidden_act=None):
    """BERT's masked-LM head on `encoder`, tied to its word embeddings (`hidden_act`: the config's unless given)."""
    return MaskedLMHead(vocab_size=config.vocab_size, hidden_size=config.hidden_size,
                        hidden_act=hidden_act or config.hidden_act, initializer_range=config.initializer_range,
                        layer_norm_eps=config.layer_norm_eps, embedding_layer=encoder.embeddings,
                        embedding_size=config.embedding_size, dtype=dtype, name=name)


@dataclasses.dataclass(frozen=True)
class ModelFamily:
    """One model family.

    Args:
        name: the family's name, as `BertConfig.family` carries it.
        model_types: config.json `model_type`s this family reads (the first is the one it writes).
        converter: its Hugging Face checkpoint (`BertConverter` or a subclass): class names, config.json and
            weight names as a table.
        encoder_class: its encoder (a keras.Model), built from its config (`config_class`: its converter's).
        tokenizer: its tokenizer kind ("wordpiece", "byte_bpe", "sentencepiece").
        next_sentence: whether its pretrainer has BERT's next-sentence head.
        mask_rate: its pretraining's share of masked tokens (BERT 15 %, ModernBERT 30 %).
        masked_lm_head: `(config, encoder, dtype, name)` -> its pretrainer's masked-LM head layer.
        pretraining_config: `(BertConfig, pad_id)` -> its config to pretrain from scratch in that shape; None: the
            `BertConfig` with the fields its converter's config fields give.
        keras_hub: its keras-hub preset layout (`models/keras_hub_layouts.py`), or None: no preset.

    Example:
        >>> ModelFamily("bert", ("bert",)).converter.architecture("Model")
        'BertModel'
    """

    name: str
    model_types: tuple
    converter: BertConverter = BertConverter()
    encoder_class: type = BertEncoder
    tokenizer: str = "wordpiece"
    next_sentence: bool = False
    mask_rate: float = 0.15
    masked_lm_head: object = bert_masked_lm_head
    pretraining_config: object = None
    keras_hub: object = None

    @property
    def config_class(self):
        """Its config dataclass (`BertConfig`, `ModernBertConfig`), as its converter reads config.json into."""
        return self.converter.config_class

    def build_masked_lm_head(self, config, encoder, dtype=None, name="mlm_head"):
        """Its pretrainer's masked-LM head on `encoder` (tied to its token embeddings)."""
        return self.masked_lm_head(config, encoder, dtype, name)

    def config_from_huggingface(self, raw, source_path):
        """The config of a config.json dict of this family; one line naming the file for a bad value."""
        try:
            config = self.converter.read_config(raw, source_path)
            if any(field.name == "family" for field in dataclasses.fields(config)):  # BertConfig carries its family
                config = config.replace(family=self.name)
            return config
        except (TypeError, ValueError) as error:  # a field of the wrong type or value: the file named once
            message = str(error)
            raise ValueError(message if str(source_path) in message else f"{source_path}: {message}") from None

    def huggingface_config(self, config, architecture):
        """config.json's dict for `config` saved as HF's `architecture`."""
        return dict(self.converter.write_config(config), model_type=self.model_types[0],
                    architectures=[architecture])
