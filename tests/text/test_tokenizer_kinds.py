"""The text contract's tokenizer kinds: byte-level BPE and SentencePiece saved and read back in every
format, Hugging Face folders that AutoTokenizer reads to the same ids, RoBERTa's pair packing."""

import json
import os

import pytest

from keras_bert.text import ByteBpeTokenizer, Preprocessor, SentencepieceTokenizer, TextConfig
from keras_bert.text.text_config import find_text_config, from_saved_assets
from keras_bert.text.tokenizer_kinds import contract_files

PAIRS = (["Hello  world, 's it?", "To be, or not to be", "naïve 東京 😀"], ["second one", "", "x\ty"])


@pytest.fixture(scope="module", params=["byte_bpe", "sentencepiece"])
def contract(request, trained_byte_bpe, trained_sentencepiece):
    if request.param == "byte_bpe":
        folder = trained_byte_bpe[0]
        return TextConfig(folder / "vocab.json", kind="byte_bpe", merges_file=folder / "merges.txt",
                          lower_case=False, max_seq_length=32)
    return TextConfig(trained_sentencepiece[0] / "sentencepiece.bpe.model", kind="sentencepiece",
                      lower_case=False, max_seq_length=32)


@pytest.fixture(scope="module")
def tokenizer(contract, byte_bpe_tokenizer):
    """One tokenizer per kind (each traces its graph once: BPE's merge loop takes seconds)."""
    return byte_bpe_tokenizer if contract.kind == "byte_bpe" else contract.tokenizer()


@pytest.mark.parametrize("format", ["keras", "huggingface"])
def test_round_trip_and_autotokenizer_pairs(contract, tokenizer, format, tmp_path):
    saved = contract.save(tmp_path, format=format)
    assert sorted(os.listdir(tmp_path)) == sorted(
        [name for name, _ in contract_files(contract)] +
        (["special_tokens_map.json", "tokenizer_config.json"] if format == "huggingface" else ["text_config.json"]) +
        (["tokenizer.json"] if format == "huggingface" and contract.kind == "byte_bpe" else []))  # transformers 5's
    read = TextConfig.from_dir(tmp_path)
    assert (read.kind, read.max_seq_length, read) == (contract.kind, 32, saved)
    read_tokenizer = read.tokenizer()
    assert isinstance(read_tokenizer, ByteBpeTokenizer if contract.kind == "byte_bpe" else SentencepieceTokenizer)
    assert read_tokenizer.text_config == read and read_tokenizer.vocab == tokenizer.vocab
    packed = Preprocessor(tokenizer, seq_length=32, padding="longest")(*PAIRS)
    if format == "huggingface":
        transformers = pytest.importorskip("transformers")
        reference = transformers.AutoTokenizer.from_pretrained(str(tmp_path))(*PAIRS, padding=True)
        assert packed["input_word_ids"].numpy().tolist() == reference["input_ids"]
        assert packed["input_mask"].numpy().tolist() == reference["attention_mask"]
        assert not packed["input_type_ids"].numpy().any()  # one token type


def test_model_assets_round_trip(contract, tokenizer, tmp_path):
    for name, path in contract_files(contract):
        with open(path, "rb") as src, open(tmp_path / name, "wb") as dst:
            dst.write(src.read())
    read = from_saved_assets(contract.to_dict(), str(tmp_path), "the model file's text contract")
    assert read == contract.replace(vocab_file=read.vocab_file, merges_file=read.merges_file)
    assert read.tokenizer().vocab == tokenizer.vocab
    os.remove(tmp_path / contract_files(contract)[-1][0])
    with pytest.raises(ValueError, match=f"{contract.kind} text contract but no .* asset"):
        from_saved_assets(contract.to_dict(), str(tmp_path), "the model file's text contract")


def test_bpe_tokenizer_json_alone_is_read(trained_byte_bpe, byte_bpe_tokenizer, tmp_path):
    (tmp_path / "tokenizer.json").write_bytes((trained_byte_bpe[0] / "tokenizer.json").read_bytes())
    read = find_text_config(tmp_path)
    assert read.kind == "byte_bpe"
    assert read.tokenizer().vocab == byte_bpe_tokenizer.vocab
    with open(read.merges_file, encoding="utf-8") as ours, \
            open(trained_byte_bpe[0] / "merges.txt", encoding="utf-8") as theirs:
        assert ours.read().split("\n")[:-1] == [m for m in theirs.read().split("\n")[1:] if m]


def test_a_tokenizer_it_cannot_run_is_one_line(tmp_path):
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "WordLevel", "vocab": {}}}))
    with pytest.raises(ValueError, match="holds a WordLevel tokenizer, which keras_bert cannot run") as error:
        TextConfig.from_dir(tmp_path)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="tokenizer kind 'wordpeace' is not supported"):
        TextConfig("vocab.txt", kind="wordpeace")
    with pytest.raises(ValueError, match="merges_file goes with kind='byte_bpe'"):
        TextConfig("vocab.json", kind="byte_bpe")


def test_preprocessor_and_offsets_run_in_a_saved_model(byte_bpe_tokenizer, tmp_path):
    """The hand-written BPE graph (merge loops, lookup tables) serializes; tf-text's SentencePiece op
    is its library's (test_sentencepiece_tokenizer.py runs it in a tf.function)."""
    import tensorflow as tf

    tokenizer = byte_bpe_tokenizer
    module = tf.Module()
    module.preprocessor = Preprocessor(tokenizer, seq_length=16)
    spec = tf.TensorSpec([None], tf.string)
    module.pack = tf.function(lambda a, b: module.preprocessor(a, b), input_signature=[spec, spec])
    module.offsets = tf.function(
        lambda texts: [t.merge_dims(1, 2).to_tensor(-1)
                       for t in module.preprocessor.tokenizer.tokenize_with_offsets(texts)],
        input_signature=[spec])
    expected = (module.pack(*PAIRS), module.offsets(PAIRS[0]))
    tf.saved_model.save(module, str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    got = (loaded.pack(*PAIRS), loaded.offsets(PAIRS[0]))
    assert {k: v.numpy().tolist() for k, v in got[0].items()} == \
        {k: v.numpy().tolist() for k, v in expected[0].items()}
    assert [t.numpy().tolist() for t in got[1]] == [t.numpy().tolist() for t in expected[1]]


def test_whole_word_masking_keeps_words_of_both_kinds(contract, tokenizer):
    import tensorflow as tf

    from keras_bert.text import MaskedLMMasker

    assert tokenizer.id_to_token(tokenizer.mask_id) == tokenizer.mask_token == "<mask>"
    assert (tokenizer.vocab_path, tokenizer.lower_case) == (contract.vocab_file, False)  # Tokenizer's names
    continues = tokenizer.continues_word
    assert len(continues) == tokenizer.vocab_size and not continues[tokenizer.cls_id]
    masker = MaskedLMMasker.from_tokenizer(tokenizer, max_predictions_per_seq=8, whole_word_masking=True)
    packed = Preprocessor(tokenizer, seq_length=32)(["Tomorrow, and tomorrow, and tomorrow creeps"])
    ids = packed["input_word_ids"].numpy()[0]
    out = masker(packed["input_word_ids"], tf.constant([3, 4]))
    chosen = set(out["masked_lm_positions"].numpy()[0][out["masked_lm_weights"].numpy()[0] > 0])
    for position in range(1, len(ids) - 1):  # a continuation is chosen exactly with its word start
        if continues[ids[position]] and ids[position - 1] not in (tokenizer.cls_id, tokenizer.pad_id):
            assert (position in chosen) == (position - 1 in chosen), position
