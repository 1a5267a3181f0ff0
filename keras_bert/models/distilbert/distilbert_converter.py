"""DistilBERT's Hugging Face names: BERT's layers under their own names, no token types, no pooler.

DistilBERT's encoder is BERT's (`BertEncoder`); its heads' `pre_classifier` + ReLU is what keras_bert's
pooler (`pooler_activation="relu"`) computes. It has no token type embeddings: keras_bert's encoder
holds one zero row (read), and a model's one row is folded into the positions (written), exactly.
"""

import numpy as np

from keras_bert.models.bert_converter import BertConverter, dense, norm

_TOKEN_TYPES, _POSITIONS = "bert/embeddings/token_type_embeddings", "bert/embeddings/position_embeddings"
_LAYER = "bert/encoder/layer_{i}/"
NAMES = (("embeddings.word_embeddings.weight", "bert/embeddings/word_embeddings", False),
         ("embeddings.position_embeddings.weight", _POSITIONS, False),
         *norm("embeddings.LayerNorm", "bert/embeddings/LayerNorm"),
         *dense("transformer.layer.{i}.attention.q_lin", _LAYER + "attention/self/query"),
         *dense("transformer.layer.{i}.attention.k_lin", _LAYER + "attention/self/key"),
         *dense("transformer.layer.{i}.attention.v_lin", _LAYER + "attention/self/value"),
         *dense("transformer.layer.{i}.attention.out_lin", _LAYER + "attention/output/dense"),
         *norm("transformer.layer.{i}.sa_layer_norm", _LAYER + "attention/output/LayerNorm"),
         *dense("transformer.layer.{i}.ffn.lin1", _LAYER + "intermediate/dense"),
         *dense("transformer.layer.{i}.ffn.lin2", _LAYER + "output/dense"),
         *norm("transformer.layer.{i}.output_layer_norm", _LAYER + "output/LayerNorm"))
HEADS = (*dense("vocab_transform", "cls/predictions/transform/dense"),
         *norm("vocab_layer_norm", "cls/predictions/transform/LayerNorm"),
         ("vocab_projector.bias", "cls/predictions/output_bias", False))
PRE_CLASSIFIER = dense("pre_classifier", "bert/pooler/dense")


class DistilBertConverter(BertConverter):
    """BERT's converter with DistilBERT's tables; token types folded into the positions."""

    def read_weights(self, weights, config):
        return {_TOKEN_TYPES: np.zeros((1, config.embedding_width), np.float32), **weights}

    def write_weights(self, weights, config):
        return dict(weights, **{_POSITIONS: weights[_POSITIONS] + weights[_TOKEN_TYPES][0]})


DISTILBERT_CONVERTER = DistilBertConverter(
    prefix="distilbert", class_prefix="DistilBert", pretraining_suffix="ForMaskedLM", base=NAMES, heads=HEADS,
    tied_decoder="vocab_projector.weight", base_pooler=False,
    head_names={"ForSequenceClassification": PRE_CLASSIFIER, "ForMultipleChoice": PRE_CLASSIFIER},
    config_keys={"hidden_size": "dim", "num_hidden_layers": "n_layers", "num_attention_heads": "n_heads",
                 "intermediate_size": "hidden_dim", "hidden_act": "activation", "hidden_dropout_prob": "dropout",
                 "attention_probs_dropout_prob": "attention_dropout"},
    config_fields={"type_vocab_size": 1, "pooler_activation": "relu"})
