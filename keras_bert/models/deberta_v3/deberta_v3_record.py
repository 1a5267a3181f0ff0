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
    base_pooler=False, keras_hub_backbone="DebertaV3Backbone", keras_hub_tokenizer="DebertaV3Tokenizer",
    keras_hub_layout="disentangled")

# keras-hub's `DebertaV3Backbone` (no pooler, positions bucketed to max_sequence_length): its layers by canonical
# name, one rule a layer (attention kernels per head, `[hidden, heads, head_size]`: reshaped, as BERT's).
KERAS_HUB_BLOCK_PARTS = (("self_attention_layer/query", "attention/self/query_proj"),
                         ("self_attention_layer/key", "attention/self/key_proj"),
                         ("self_attention_layer/value", "attention/self/value_proj"),
                         ("self_attention_layer/attention_output", "attention/output/dense"),
                         ("self_attention_layer_norm", "attention/output/LayerNorm"),
                         ("feedforward_intermediate_dense", "intermediate/dense"),
                         ("feedforward_output_dense", "output/dense"),
                         ("feedforward_layer_norm", "output/LayerNorm"))


def keras_hub_variables(backbone):
    """`[(canonical name, keras-hub variable)]` of a `keras_hub.models.DebertaV3Backbone` (the layout a
    keras-hub preset reader and writer need: `checkpoints/keras_hub_layouts.py`'s "disentangled")."""
    by_path = {variable.path: variable for variable in backbone.weights}
    entries = [("bert/embeddings/word_embeddings", "token_embedding/embeddings"),
               ("bert/embeddings/LayerNorm/gamma", "embeddings_layer_norm/gamma"),
               ("bert/embeddings/LayerNorm/beta", "embeddings_layer_norm/beta"),
               ("bert/encoder/rel_embeddings", "rel_embedding/rel_embedding"),
               ("bert/encoder/LayerNorm/gamma", "rel_embedding/rel_embeddings_layer_norm/gamma"),
               ("bert/encoder/LayerNorm/beta", "rel_embedding/rel_embeddings_layer_norm/beta")]
    for index in range(backbone.num_layers):
        for ours, canonical in KERAS_HUB_BLOCK_PARTS:
            leaves = ("gamma", "beta") if canonical.endswith("LayerNorm") else ("kernel", "bias")
            entries += [(f"bert/encoder/layer_{index}/{canonical}/{leaf}",
                         f"disentangled_attention_encoder_layer_{index}/{ours}/{leaf}") for leaf in leaves]
    return [(name, by_path[path]) for name, path in entries]
