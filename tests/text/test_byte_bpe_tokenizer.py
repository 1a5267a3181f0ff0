"""ByteBpeTokenizer: ids and offsets equal to Hugging Face `tokenizers` on a BPE trained here."""

import pytest
import tensorflow as tf

from keras_bert.text.byte_bpe_tokenizer import ByteBpeTokenizer

EXTRA = ["  hello   world  ", "a\t\tb 's 'll x\n\ny", "a\x00b  \x00 c", " \u00a0 x\u3000\u3000y\t z",
         # literal special tokens: their ids, as Hugging Face's added tokens
         "The capital is <mask>. </s>x<s>", "<mask> <mask><mask> a<unk>b [MASK]", "a\x00<mask>b", "  <s>  x <s"]


@pytest.fixture(scope="module")
def lines(shakespeare_lines):
    return shakespeare_lines[:400]


@pytest.fixture(scope="module")
def trained(trained_byte_bpe):
    return trained_byte_bpe


@pytest.fixture(scope="module")
def tokenizer(byte_bpe_tokenizer):
    return byte_bpe_tokenizer


def test_ids_and_offsets_equal_hugging_face(tokenizer, trained, hard_cases, lines):
    texts = hard_cases + EXTRA + lines
    ids, starts, ends = tokenizer.tokenize_with_offsets(texts)
    assert ids.to_list() == tokenizer.tokenize_words(texts).to_list()
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in (ids, starts, ends))
    for i, (text, reference) in enumerate(zip(texts, trained[1].encode_batch(texts))):
        assert ids[i] == reference.ids[1:-1], text  # HF's <s> ... </s> cut off
        assert list(zip(starts[i], ends[i])) == reference.offsets[1:-1], text


def test_special_ids_and_detokenize(tokenizer, hard_cases):
    assert (tokenizer.cls_id, tokenizer.pad_id, tokenizer.sep_id, tokenizer.unk_id, tokenizer.mask_id) == \
        (0, 1, 2, 3, 4)
    texts = hard_cases + EXTRA
    assert tokenizer.detokenize(tokenizer.tokenize(texts)).numpy().tolist() == [t.encode() for t in texts]
    assert tokenizer.detokenize([tokenizer.pad_id, *tokenizer.tokenize("a b").numpy()]).numpy() == b"a b"
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tokenizer.detokenize([[tokenizer.vocab_size]])


def test_runs_in_a_graph(tokenizer):
    graph = tf.function(tokenizer.tokenize, input_signature=[tf.TensorSpec([None], tf.string)])
    texts = ["The cat's   tail", ""]
    assert graph(tf.constant(texts)).to_list() == tokenizer.tokenize(texts).to_list()
    assert tokenizer.tokenize("x y").shape.rank == 1  # a scalar in, one row out


def test_bad_files_name_themselves(tmp_path, trained):
    (tmp_path / "vocab.json").write_text('{"a": 0, "b": 2}')
    with pytest.raises(ValueError, match="vocab.json.*without gaps"):
        ByteBpeTokenizer(tmp_path / "vocab.json", trained[0] / "merges.txt")
    (tmp_path / "vocab.json").write_text('{"a": 0, "b": 1}')
    with pytest.raises(ValueError, match=r"lacks the special token\(s\)"):
        ByteBpeTokenizer(tmp_path / "vocab.json", trained[0] / "merges.txt")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b c\n")
    with pytest.raises(ValueError, match="merges.txt: merge rule 'a b c'"):
        ByteBpeTokenizer(trained[0] / "vocab.json", tmp_path / "merges.txt")


def test_bert_named_specials_as_modernbert(tmp_path, lines, hard_cases):
    """ModernBERT's byte-level BPE names its specials [CLS] [SEP] ... and packs them with
    TemplateProcessing (no offset trimming); its tokenizer.json alone is a contract."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.processors import TemplateProcessing

    from keras_bert.text import Preprocessor, TextConfig

    reference = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    reference.train_from_iterator(lines[:200] + hard_cases, vocab_size=600, show_progress=False,
                                  special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    reference.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", reference.token_to_id("[CLS]")), ("[SEP]", reference.token_to_id("[SEP]"))])
    reference.save(str(tmp_path / "tokenizer.json"))
    tokenizer = TextConfig.from_dir(tmp_path).tokenizer()
    assert (tokenizer.pair_layout, tokenizer.cls_id, tokenizer.mask_id) == ("bert", 1, 4)
    texts = hard_cases + EXTRA + lines[:50]
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in tokenizer.tokenize_with_offsets(texts))
    for i, expected in enumerate(reference.encode_batch(texts)):
        assert (ids[i], list(zip(starts[i], ends[i]))) == (expected.ids[1:-1], expected.offsets[1:-1]), texts[i]
    packed = Preprocessor(tokenizer, seq_length=64)(["To be, or not"], ["that is"])
    expected = reference.encode("To be, or not", "that is")
    assert packed["input_word_ids"][0, :len(expected.ids)].numpy().tolist() == expected.ids
    assert packed["input_type_ids"][0, :len(expected.ids)].numpy().tolist() == expected.type_ids
    # Saved as a Hugging Face folder: its own tokenizer.json, which AutoTokenizer reads to the same ids.
    tokenizer.text_config.save(tmp_path / "hf", format="huggingface")
    transformers = pytest.importorskip("transformers")
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "hf"))
    encoded = auto("To be, or not", "that is", return_offsets_mapping=True)
    assert (encoded["input_ids"], encoded["offset_mapping"]) == (expected.ids, expected.offsets)
    assert TextConfig.from_dir(tmp_path / "hf").tokenizer().vocab == tokenizer.vocab


def test_a_word_of_20000_letters_costs_its_first_1024_bytes(tokenizer, trained, lines):
    """Issue 44 §7: a bad PDF extraction (no spaces) was quadratic in the word (10,000 letters: 35 s). Past a
    word's first HEAD bytes it stays one token per byte: the leading pieces equal Hugging Face's."""
    from keras_bert.text.byte_level import HEAD

    letters = "".join(c for c in "".join(lines) if c.isalpha())
    word = (letters * (20_000 // len(letters) + 1))[:20_000]
    ids = tokenizer.tokenize(word).numpy().tolist()
    expected = trained[1].encode(word, add_special_tokens=False).ids
    head = tokenizer.tokenize(word[:HEAD]).numpy().tolist()
    assert ids[:len(head) - 8] == expected[:len(head) - 8] and len(head) > 300
    assert len(ids) == len(head) + len(word) - HEAD  # the rest: one byte each


def test_max_pieces_merges_only_what_the_first_pieces_need(tokenizer, trained, lines):
    """Issue 44: only a text's first seq_length pieces count (100 words of 1,000 letters took 18 s to
    serve). With `max_pieces` the words past reach are not merged: the first `max_pieces` ids equal
    Hugging Face's, all of them for a text that fits; in the graph, as the Preprocessor calls it."""
    import random

    rng = random.Random(0)
    hostile = [" ".join("".join(rng.choice("etaoinshr") for _ in range(300)) for _ in range(30)),
               "a " * 3000, "<mask> " * 40 + "x", "\u00a0 " * 500 + "word"]
    texts = lines[:40] + EXTRA + hostile
    graph = tf.function(lambda t: tokenizer.tokenize(t, max_pieces=24),
                        input_signature=[tf.TensorSpec([None], tf.string)])
    got = graph(tf.constant(texts)).to_list()
    expected = [e.ids for e in trained[1].encode_batch(texts, add_special_tokens=False)]
    for text, ids, reference in zip(texts, got, expected):
        assert ids[:24] == reference[:24] and (len(reference) > 24 or ids == reference), text
    assert len(got[-4]) < len(expected[-4]) / 4 and len(got[-3]) < 50  # the rest is never merged
