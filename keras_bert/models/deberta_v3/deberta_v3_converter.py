"""DeBERTa-v3's Hugging Face names (`DebertaV2*`, model_type "deberta-v2") as a table, one rule a weight or a layer.

Its base model's names follow BERT's layout under `deberta.`: BERT's embeddings (DeBERTa-v3 has no position or
token type table; v2 folders may), its blocks' own projections (`attention.self.query_proj`, `pos_key_proj`...:
one rule per part of `DebertaV3Encoder`'s `BLOCK_PARTS`, HF's name its canonical one with dots) and its shared
relative embeddings (`encoder.rel_embeddings`, `encoder.LayerNorm`). `DebertaV2Model` has no pooler: its sequence
and multiple-choice heads' `ContextPooler` (`pooler.dense`, outside the prefix) is keras_bert's pooler. Its masked
LM (`legacy`, transformers' default) is BERT's `cls.predictions`, tied to the words.
"""

from keras_bert.models.bert_converter import EMBEDDINGS, PRETRAINING_HEADS, BertConverter, dense, norm
from keras_bert.models.deberta_v3.deberta_v3_config import DebertaV3Config
from keras_bert.models.deberta_v3.deberta_v3_encoder import BLOCK_PARTS


class DebertaV3Converter(BertConverter):
    """BERT's table machinery with DeBERTa-v3's config (`DebertaV3Config`)."""

    config_class = DebertaV3Config


LAYER = tuple(rule for _, part in BLOCK_PARTS
              for rule in (norm if part.endswith("LayerNorm") else dense)(
                  "encoder.layer.{i}." + part.replace("/", "."), "bert/encoder/layer_{i}/" + part))
RELATIVE = (("encoder.rel_embeddings.weight", "bert/encoder/rel_embeddings", False),
            *norm("encoder.LayerNorm", "bert/encoder/LayerNorm"))
CONTEXT_POOLER = dense("pooler.dense", "bert/pooler/dense")

DEBERTA_V3_CONVERTER = DebertaV3Converter(
    prefix="deberta", class_prefix="DebertaV2", pretraining_suffix="ForMaskedLM", base=EMBEDDINGS + RELATIVE + LAYER,
    heads=tuple(rule for rule in PRETRAINING_HEADS if rule[0].startswith("cls.predictions.")),
    head_names={"ForSequenceClassification": CONTEXT_POOLER, "ForMultipleChoice": CONTEXT_POOLER},
    base_pooler=False)
