"""SpmTokenizer (DeBERTa-v3's spm.model): a transformers-saved DebertaV2Tokenizer folder (tokenizer.json only, as
transformers 5 saves it) and an spm.model folder read as kind "spm" with ids equal to AutoTokenizer's on
Shakespeare lines; the contract saves back as a folder AutoTokenizer reads; BERT's specials and pair layout."""

import shutil

import pytest

from keras_bert.text.text_config import TextConfig
from tests.models.deberta_v3.tiny_deberta import save_tokenizer


@pytest.fixture(scope="module")
def lines(shakespeare_files):
    with open(shakespeare_files[0], encoding="utf-8") as f:
        return [line for line in f.read().splitlines() if line.strip()][:2000]


def test_ids_equal_autotokenizer_and_the_contract_goes_back(lines, tmp_path):
    transformers = pytest.importorskip("transformers")
    reference = save_tokenizer(str(tmp_path / "hf"), lines)
    contract = TextConfig.from_dir(tmp_path / "hf")
    assert (contract.kind, contract.max_seq_length) == ("spm", 512)
    tokenizer = contract.tokenizer()
    assert (tokenizer.pad_id, tokenizer.cls_id, tokenizer.sep_id, tokenizer.unk_id, tokenizer.mask_id,
            tokenizer.vocab_size) == (0, 1, 2, 3, 300, 301) == (
        reference.pad_token_id, reference.cls_token_id, reference.sep_token_id, reference.unk_token_id,
        reference.mask_token_id, len(reference))
    assert (tokenizer.pair_layout, tokenizer.mask_token) == ("bert", "[MASK]")
    texts = lines[:400] + ["  Hello,   WORLD! ", "ÄÖÜ ﬁ café", "tab\there", "", "the [MASK] is", "x[MASK]y",
                           "a [CLS] b [SEP] c[UNK] [PAD]", "[MASK][MASK]  [MASK]"]  # literal specials: their ids
    ours = tokenizer.tokenize(texts).to_list()
    assert ours == [reference(text, add_special_tokens=False)["input_ids"] for text in texts]
    # tokenize_with_offsets reads literal specials by the same rule, each spanning its literal's characters, and a
    # `▁` piece's span keeps the space it stands for (DeBERTa's converted tokenizer; XLM-R's leaves it out): the
    # spans equal transformers' (before the spm kind kept that space: 20 of 430 texts with Shakespeare's lines).
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in tokenizer.tokenize_with_offsets(texts))
    assert ids == ours
    expected = reference(texts, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    differ = [texts[k] for k, row in enumerate(zip(starts, ends)) if list(zip(*row)) != [tuple(o) for o in expected[k]]]
    assert differ == ["ÄÖÜ ﬁ café"]  # transformers' `▁` before the expanded ligature spans it too: (3, 5), ours (3, 4)
    assert [(s, e) for i, s, e in zip(ids[-4], starts[-4], ends[-4]) if i == 300] == [(4, 10)]
    assert [t.decode() for t in tokenizer.detokenize(tokenizer.tokenize(["To be, or not"])).numpy()] == [
        "To be, or not"]
    saved = contract.save(tmp_path / "back", format="huggingface")
    assert saved.vocab_file == str(tmp_path / "back" / "spm.model")
    back = transformers.AutoTokenizer.from_pretrained(tmp_path / "back")
    assert type(back).__name__ == "DebertaV2Tokenizer" and back.mask_token_id == 300
    assert [back(text, add_special_tokens=False)["input_ids"] for text in texts] == ours
    only_model = tmp_path / "only_model"  # a hub folder's spm.model, no tokenizer.json
    only_model.mkdir()
    shutil.copy(saved.vocab_file, only_model / "spm.model")
    assert TextConfig.from_dir(only_model).tokenizer().tokenize(texts[:50]).to_list() == ours[:50]


def test_a_model_without_deberta_specials_is_one_line(tmp_path, lines):
    sentencepiece = pytest.importorskip("sentencepiece")
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(tmp_path / "spm"),
                                             vocab_size=200, minloglevel=2)
    with pytest.raises(ValueError, match=r"spm.model has no \[PAD\] piece; DeBERTa's spm.model holds"):
        TextConfig(tmp_path / "spm.model", kind="spm").tokenizer()
