"""learn_byte_bpe: RoBERTa's vocab.json + merges.txt learnt from text, read by the in-graph tokenizer."""

import pytest

from keras_bert.text.byte_bpe_learner import learn_byte_bpe


def test_a_learnt_byte_bpe_has_roberta_specials_and_tokenizes_as_tokenizers_does(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("To be, or not to be, that is the question.\n\nWhether 'tis nobler in the mind\n" * 20,
                      encoding="utf-8")
    config = learn_byte_bpe([str(corpus)], 300, tmp_path / "bpe", min_frequency=1)
    tokenizer = config.tokenizer()
    assert config.kind == "byte_bpe" and tokenizer.vocab_size == 300
    assert (tokenizer.cls_id, tokenizer.pad_id, tokenizer.sep_id, tokenizer.unk_id, tokenizer.mask_id) == (0, 1, 2, 3, 4)
    reference = tokenizers.ByteLevelBPETokenizer(config.vocab_file, config.merges_file)
    text = "Whether to be nobler, or not?"
    assert tokenizer.tokenize([text]).to_list()[0] == reference.encode(text).ids
    with pytest.raises(ValueError, match=r"^A byte-level BPE needs vocab_size >= 261"):
        learn_byte_bpe([str(corpus)], 100, tmp_path / "small")


def test_build_vocab_tool_writes_a_byte_bpe_folder(tmp_path):
    pytest.importorskip("tokenizers")
    from tests.conftest import run_tool

    (tmp_path / "a.txt").write_text("the king is dead, long live the king\n" * 30, encoding="utf-8")
    done = run_tool("build_vocab", "a.txt", "--kind", "byte_bpe", "--vocab_size", "280", "--output", "bpe",
                    cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tokens to bpe/vocab.json and bpe/merges.txt" in done.stdout
    (tmp_path / "file").write_text("", encoding="utf-8")
    refused = run_tool("build_vocab", "a.txt", "--kind", "byte_bpe", "--output", "file", cwd=str(tmp_path))
    assert refused.returncode == 2 and "--output 'file' is a file; --kind byte_bpe writes a folder" in refused.stderr
