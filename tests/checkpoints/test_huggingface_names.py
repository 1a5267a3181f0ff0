"""checkpoints/huggingface_names.py: Hugging Face weight names <-> canonical (Google) names, per family."""

from keras_bert.checkpoints.huggingface_names import canonical_name, family_hf_name, google_name, huggingface_name
from keras_bert.models.families import BERT, ROBERTA, XLM_ROBERTA


def test_bert_names_are_googles_and_go_back():
    assert google_name("bert.encoder.layer.3.attention.self.query.weight") == (
        "bert/encoder/layer_3/attention/self/query/kernel", True)
    assert huggingface_name("bert/encoder/layer_3/attention/self/query/kernel") == (
        "bert.encoder.layer.3.attention.self.query.weight", True)
    assert canonical_name("cls.predictions.bias", BERT) == ("cls/predictions/output_bias", False)


def test_roberta_and_xlm_r_names_through_their_records():
    for family in (ROBERTA, XLM_ROBERTA):
        cases = {("roberta.embeddings.LayerNorm.weight", None): ("bert/embeddings/LayerNorm/gamma", False),
                 ("lm_head.dense.weight", "ForMaskedLM"): ("cls/predictions/transform/dense/kernel", True),
                 ("lm_head.bias", "ForMaskedLM"): ("cls/predictions/output_bias", False),
                 ("classifier.dense.weight", "ForSequenceClassification"): ("bert/pooler/dense/kernel", True),
                 ("classifier.out_proj.bias", "ForSequenceClassification"): ("output_bias", False),
                 ("qa_outputs.weight", "ForQuestionAnswering"): ("cls/squad/output_weights", False)}
        for (hf, suffix), canonical in cases.items():
            assert canonical_name(hf, family, suffix) == canonical
            assert family_hf_name(canonical[0], family, suffix) == (hf, canonical[1])


def test_distilbert_parts_are_renamed_inside_names_both_ways():
    from keras_bert.models.families import DISTILBERT

    cases = {("distilbert.transformer.layer.1.attention.out_lin.weight", None):
             ("bert/encoder/layer_1/attention/output/dense/kernel", True),
             ("distilbert.transformer.layer.1.ffn.lin2.bias", None): ("bert/encoder/layer_1/output/dense/bias", False),
             ("distilbert.transformer.layer.0.sa_layer_norm.weight", None):
             ("bert/encoder/layer_0/attention/output/LayerNorm/gamma", False),
             ("distilbert.transformer.layer.0.output_layer_norm.bias", None):
             ("bert/encoder/layer_0/output/LayerNorm/beta", False),
             ("vocab_projector.bias", "ForMaskedLM"): ("cls/predictions/output_bias", False),
             ("pre_classifier.weight", "ForMultipleChoice"): ("bert/pooler/dense/kernel", True)}
    for (hf, suffix), canonical in cases.items():
        assert canonical_name(hf, DISTILBERT, suffix) == canonical
        assert family_hf_name(canonical[0], DISTILBERT, suffix) == (hf, canonical[1])
