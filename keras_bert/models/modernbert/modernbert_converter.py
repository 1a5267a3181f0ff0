"""ModernBERT's Hugging Face names: its canonical names are Hugging Face's without `model.`; heads by table.

ModernBERT is not BERT-shaped: its encoder names its weights as Hugging Face does (`modernbert_weights.py`),
so one rule maps the whole encoder (`model.` + canonical, bare in a base `ModernBertModel` file, which holds no
prediction `head.*`, keras_bert's pooler). Its heads' weights are the task heads' Google names, as every family's.
"""

from keras_bert.models.bert_converter import BertConverter, match_name
from keras_bert.models.modernbert.modernbert_config import ModernBertConfig
from keras_bert.models.modernbert.modernbert_weights import POOLER_PREFIX, to_canonical, to_huggingface


class ModernBertConverter(BertConverter):
    """One rule for the encoder (`model.` + its canonical names), a table for the heads."""

    config_class = ModernBertConfig

    def _rules(self, suffix, task_heads):  # the heads' only: one rule for the encoder
        return tuple(self.head_names.get(suffix, ())) + self.heads + tuple(task_heads)

    def canonical_name(self, hf_name, suffix=None, task_heads=()):
        return match_name(hf_name, self._rules(suffix, task_heads)) or (to_canonical(hf_name), False)

    def hf_name(self, canonical, suffix=None, task_heads=()):
        head = match_name(canonical, self._rules(suffix, task_heads), source=1)
        if head or suffix != "Model":
            return head or (to_huggingface(canonical), False)
        return None if canonical.startswith(POOLER_PREFIX) else (canonical, False)


MODERNBERT_CONVERTER = ModernBertConverter(
    prefix="model", class_prefix="ModernBert", pretraining_suffix="ForMaskedLM", base=(),
    heads=(("decoder.bias", "cls/predictions/output_bias", False),), tied_decoder="decoder.weight",
    head_names={"ForQuestionAnswering": (("classifier.weight", "cls/squad/output_weights", False),  # its QA head
                                         ("classifier.bias", "cls/squad/output_bias", False))},
    base_pooler=False, pooler_prefix=POOLER_PREFIX)
