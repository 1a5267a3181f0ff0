"""tokenize_keeping_masks: a literal [MASK] in fill-mask prompts stays one mask id, in graph and eagerly."""

import pytest
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


def test_a_byte_bpe_mask_is_its_own_token_and_takes_the_spaces_before_it(trained_byte_bpe):
    """RoBERTa's `<mask>` (not `[MASK]`): ids equal to `tokenizers` with `<mask>` as roberta-base's
    tokenizer.json holds it (`lstrip=True`: the spaces before it are part of the mask)."""
    tokenizers = pytest.importorskip("tokenizers")
    from keras_bert.text.byte_bpe_tokenizer import ByteBpeTokenizer

    folder, _ = trained_byte_bpe
    ours = ByteBpeTokenizer(folder / "vocab.json", folder / "merges.txt")
    theirs = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    theirs.add_special_tokens([tokenizers.AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    texts = ["The capital of France is <mask>.", "<mask>  <mask> twice", "no mask [MASK]", "<mask>"]
    graph = tokenize_keeping_masks(ours, tf.constant(texts), ours.mask_id).to_list()
    assert graph == tokenize_keeping_masks_eager(ours, texts, ours.mask_id).to_list()
    assert graph == [theirs.encode(t, add_special_tokens=False).ids for t in texts]
    assert ours.mask_id not in graph[2] and graph[3] == [ours.mask_id]
