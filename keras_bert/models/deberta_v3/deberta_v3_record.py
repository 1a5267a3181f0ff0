"""DeBERTa-v3's family record fields (`keras_bert.models.families.ModelFamily`): how its Hugging Face
folders (`DebertaV2*`, model_type "deberta-v2") name what keras_bert holds.

Its names follow BERT's layout under the prefix `deberta.` (`encoder.layer.{i}.attention.self.query_proj`,
`attention.output.dense`, `intermediate.dense`, `output.LayerNorm`; `encoder.rel_embeddings` and
`encoder.LayerNorm`, its shared relative embeddings), so BERT's rule maps them onto the canonical names
`DebertaV3Encoder.named_variables` gives, one rule a layer. What it names otherwise, one line each:
its sequence and multiple-choice heads' `ContextPooler` (`pooler.dense`, outside the prefix) is keras_bert's
pooler; its masked LM (`legacy`, transformers' default) is BERT's `cls.predictions`, tied to the words.
"""

from keras_bert.models.deberta_v3.deberta_v3_config import MODEL_TYPES, DebertaV3Config
from keras_bert.models.deberta_v3.deberta_v3_encoder import DebertaV3Encoder

_CONTEXT_POOLER = (("pooler.dense.", "bert.pooler.dense."),)  # HF name prefix, BERT's

FAMILY_FIELDS = dict(
    model_types=MODEL_TYPES, config_class=DebertaV3Config, encoder_class=DebertaV3Encoder, hf_prefix="deberta",
    hf_class_prefix="DebertaV2", pretraining_suffix="ForMaskedLM", next_sentence=False, tokenizer="spm",
    head_renames={"ForSequenceClassification": _CONTEXT_POOLER, "ForMultipleChoice": _CONTEXT_POOLER},
    pooler=False,  # DebertaV2Model has none: the ContextPooler is written in its head classes' files only
    base_pooler=False)
