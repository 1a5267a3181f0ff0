"""tokenize_keeping_masks: a literal [MASK] in fill-mask prompts stays one mask id, in graph and eagerly."""

import json

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


def test_a_byte_bpe_mask_is_its_own_token_and_takes_the_spaces_before_it(trained_byte_bpe, tmp_path):
    """RoBERTa's `<mask>` (not `[MASK]`): ids equal to `tokenizers` with `<mask>` as roberta-base's
    tokenizer.json holds it (`lstrip=True`: the spaces before it are part of the mask). The contract carries the
    flag (read from tokenizer.json, saved in text_config.json, written back to tokenizer.json) and the tokenizer
    honours it in plain text too: ids and offsets equal transformers (before: 4 of these 24 texts)."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    from keras_bert.text import TextConfig
    from keras_bert.text.byte_bpe_tokenizer import ByteBpeTokenizer

    folder, _ = trained_byte_bpe
    TextConfig.from_dir(folder).save(tmp_path / "hf", format="huggingface")
    raw = json.loads((tmp_path / "hf" / "tokenizer.json").read_text())
    for token in raw["added_tokens"]:
        token["lstrip"] = token["content"] == "<mask>"
    (tmp_path / "hf" / "tokenizer.json").write_text(json.dumps(raw))
    contract = TextConfig.from_dir(tmp_path / "hf")
    assert contract.lstrip_tokens == ("<mask>",)
    assert TextConfig.from_dir(contract.save(tmp_path / "keras").source).lstrip_tokens == ("<mask>",)
    assert TextConfig.from_dir(tmp_path / "keras").save(tmp_path / "back", format="huggingface").lstrip_tokens
    ours = contract.tokenizer()
    theirs = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    theirs.add_special_tokens([tokenizers.AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    texts = ["The capital of France is <mask>.", "<mask>  <mask> twice", "no mask [MASK]", "<mask>"]
    graph = tokenize_keeping_masks(ours, tf.constant(texts), ours.mask_id).to_list()
    assert graph == tokenize_keeping_masks_eager(ours, texts, ours.mask_id).to_list()
    assert graph == [theirs.encode(t, add_special_tokens=False).ids for t in texts]
    assert ours.mask_id not in graph[2] and graph[3] == [ours.mask_id]
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "back"))
    texts = ["the <mask> is", "The capital of France is <mask>.", "<mask>", " <mask>", "a  <mask>  b", "a\t<mask>",
             "x<mask>y", "<mask> <mask><mask>", "a \u00a0<mask>", "a\u3000<mask> b", "  <mask>", "no mask here",
             "a\n\n<mask>\n", "it's <mask>'s", "<mask>. <mask>!", "Hello <mask> world <mask>", "a\x00 <mask>",
             "é <mask> é", "1 <mask> 2", "<s> <mask> </s>", "<unk> <mask>", "a <mask>  ", "  a <mask> b  ", "<mask>  x"]
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in ours.tokenize_with_offsets(texts))
    assert ours.tokenize(texts).to_list() == ids
    for i, text in enumerate(texts):
        expected = auto(text, add_special_tokens=False, return_offsets_mapping=True)
        assert (ids[i], list(zip(starts[i], ends[i]))) == (expected["input_ids"], expected["offset_mapping"]), text
    with pytest.raises(ValueError, match="lstrip_tokens.*kind='wordpiece'"):
        TextConfig("vocab.txt", lstrip_tokens=["[MASK]"])
    with pytest.raises(ValueError, match=r"lstrip token\(s\) \['<nope>'\]"):
        ByteBpeTokenizer(folder / "vocab.json", folder / "merges.txt", lstrip_tokens=["<nope>"])
