"""ELECTRA's Hugging Face names: BERT's under `electra.`, its `embeddings_project`, its generator's head.

ELECTRA's encoder is BERT's (`BertEncoder` with `embedding_size`: the projection after the embeddings
where they are narrower than the blocks); its base model has no pooler, and its sequence head's
`classifier.dense` + GELU is what keras_bert's pooler (`pooler_activation="gelu"`) computes.
"""

from keras_bert.models.bert_converter import EMBEDDINGS, LAYER, POOLER_CLASSIFIER, BertConverter, dense, norm

ELECTRA_CONVERTER = BertConverter(
    prefix="electra", class_prefix="Electra", pretraining_suffix="ForMaskedLM",
    base=EMBEDDINGS + dense("embeddings_project", "bert/embeddings_project") + LAYER,
    heads=(*dense("generator_predictions.dense", "cls/predictions/transform/dense"),
           *norm("generator_predictions.LayerNorm", "cls/predictions/transform/LayerNorm"),
           ("generator_lm_head.bias", "cls/predictions/output_bias", False)),
    tied_decoder="generator_lm_head.weight",
    head_names={"ForSequenceClassification": POOLER_CLASSIFIER},
    unsupported=("ForMultipleChoice", "ForPreTraining"), base_pooler=False,
    config_fields={"pooler_activation": "gelu"}, embedding_size=True)
