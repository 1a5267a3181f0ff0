"""Fixtures shared by the data tests: the SQuAD v1.1/v2.0 fixture features."""

import pytest

from keras_bert.data.squad import squad_examples, squad_features
from tests.data.squad_helpers import DOC_STRIDE, SEQ_LENGTH, V1, V2


@pytest.fixture(scope="module")
def v1(tokenizer):
    examples = squad_examples(V1)
    return examples, squad_features(examples, tokenizer, seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE)


@pytest.fixture(scope="module")
def v2(tokenizer):
    examples = squad_examples(V2)
    return examples, squad_features(examples, tokenizer, seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE)
