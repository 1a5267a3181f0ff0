"""tokenize_keeping_masks: a literal [MASK] in fill-mask prompts stays one mask id, in graph and eagerly."""

import tensorflow as tf

from keras_bert.tasks.masked_lm_serving import tokenize_keeping_masks_eager
from keras_bert.text.mask_token import tokenize_keeping_masks


def test_mask_aware_tokenization_matches_python(tokenizer):
    texts = ["The capital of France is [MASK].", "[MASK] [MASK] twice", "no mask", "", "[MASK]"]
    graph = tokenize_keeping_masks(tokenizer, tf.constant(texts), tokenizer.mask_id).to_list()
    eager = tokenize_keeping_masks_eager(tokenizer, texts, tokenizer.mask_id).to_list()
    assert graph == eager
    assert graph[0][-2:] == [tokenizer.mask_id, tokenizer.token_to_id(".")]
    assert graph[1][:2] == [tokenizer.mask_id, tokenizer.mask_id]
    assert graph[4] == [tokenizer.mask_id]
    assert tokenizer.mask_id not in graph[2]
