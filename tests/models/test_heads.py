"""models/heads.py: HEADS and the head class of a Hugging Face architecture."""

from keras_bert.models.heads import hf_head


def test_hf_head_finds_the_head_class_of_an_architectures_list():
    assert hf_head(["BertModel", "BertForQuestionAnswering"]).__name__ == "SpanHead"
    assert hf_head(["BertForMultipleChoice"]).__name__ == "MultipleChoiceHead"
    assert hf_head(["BertModel"]) is None and hf_head(None) is None
