import random

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.text import Tokenizer


def hf_ids(hf, lines):
    return hf(lines, add_special_tokens=False)["input_ids"]


def our_ids(tokenizer, lines, batch=8192):
    ids = []
    for start in range(0, len(lines), batch):
        ids += tokenizer.tokenize(tf.constant(lines[start:start + batch])).to_list()
    return ids


def mismatches(lines, ours, reference):
    return [(line, a, b) for line, a, b in zip(lines, ours, reference) if a != b]


def random_unicode_lines(n, seed=0):
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        chars = []
        for _ in range(rng.randint(1, 30)):
            r = rng.random()
            low, high = ((0x20, 0x7E) if r < 0.4 else (0xA0, 0x2FFF) if r < 0.6
                         else (0x3000, 0xFFFF) if r < 0.8 else (0x10000, 0x2FFFF))
            cp = rng.randint(low, high)
            if not 0xD800 <= cp <= 0xDFFF:
                chars.append(chr(cp))
        lines.append("".join(chars))
    return lines


def test_reference_parity_uncased(vocab_path, hf_uncased, shakespeare_lines, hard_cases):
    lines = shakespeare_lines + hard_cases + random_unicode_lines(3000)
    tokenizer = Tokenizer(vocab_path, lower_case=True, normalization="reference")
    bad = mismatches(lines, our_ids(tokenizer, lines), hf_ids(hf_uncased, lines))
    assert not bad, f"{len(bad)} of {len(lines)} lines differ from BertTokenizerFast, e.g. {bad[:3]}"


def test_reference_parity_cased(vocab_path, hf_cased, shakespeare_lines, hard_cases):
    lines = shakespeare_lines + hard_cases + random_unicode_lines(3000, seed=1)
    tokenizer = Tokenizer(vocab_path, lower_case=False, normalization="reference")
    bad = mismatches(lines, our_ids(tokenizer, lines), hf_ids(hf_cased, lines))
    assert not bad, f"{len(bad)} of {len(lines)} lines differ from BertTokenizerFast, e.g. {bad[:3]}"


@pytest.mark.parametrize("lower_case,split_special_tokens", [(True, False), (False, True)])
def test_reference_parity_on_ascii_lines(vocab_path, lower_case, split_special_tokens):
    """Printable ASCII lines take `tokenize`'s one-op path; control characters, literal special
    tokens and over-long words in them send a line to, or test, the split between the paths."""
    transformers = pytest.importorskip("transformers")
    rng = random.Random(2)
    alphabet = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "\n", "\r", "\x07", "\x0b", "\x7f"]
    words = ["Hello", "unaffable", "[MASK]", "[mask]", "[CLS", "##ing", "a" * 100, "b" * 101, "x!" * 60]
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(1500)]
    lines += [rng.choice(["", " "]).join(rng.choice(words + alphabet) for _ in range(rng.randint(1, 12)))
              for _ in range(1500)]
    lines += [chr(c) for c in range(128)] + [f"a{chr(c)}B" for c in range(128)]
    hf = transformers.BertTokenizerFast(vocab=vocab_path, do_lower_case=lower_case,
                                        split_special_tokens=split_special_tokens)
    tokenizer = Tokenizer(vocab_path, lower_case=lower_case, split_special_tokens=split_special_tokens)
    ours = our_ids(tokenizer, lines)
    bad = mismatches(lines, ours, hf_ids(hf, lines))
    assert not bad, f"{len(bad)} of {len(lines)} lines differ from BertTokenizerFast, e.g. {bad[:3]}"
    assert tokenizer.tokenize_words(lines).merge_dims(1, 2).to_list() == ours  # the regex-op path


def test_fast_normalization_differs_only_on_rare_characters(vocab_path, hf_uncased, shakespeare_lines,
                                                           hard_cases, record_property):
    tokenizer = Tokenizer(vocab_path, normalization="fast")
    reference = hf_ids(hf_uncased, shakespeare_lines + hard_cases)
    ours = our_ids(tokenizer, shakespeare_lines + hard_cases)
    n = len(shakespeare_lines)
    bad_corpus = mismatches(shakespeare_lines, ours[:n], reference[:n])
    bad_hard = mismatches(hard_cases, ours[n:], reference[n:])
    record_property("fast_mismatches", f"{len(bad_corpus)}/{n} corpus, {len(bad_hard)}/{len(hard_cases)} hard")
    print(f"normalization='fast' disagrees with BertTokenizerFast on {len(bad_corpus)} of {n} "
          f"Shakespeare lines and {len(bad_hard)} of {len(hard_cases)} hard cases")
    assert not bad_corpus
    # The documented NFKC case-folding differences: ß -> ss, ™ -> tm, … -> ..., fullwidth forms.
    assert 0 < len(bad_hard) < len(hard_cases) // 2
    for text, folded in [("straße", "strasse"), ("™", "tm"), ("…", "..."), ("ＡＢＣ", "abc")]:
        assert tokenizer.tokenize(text).numpy().tolist() == hf_ids(hf_uncased, [folded])[0]


SPECIAL_LINES = ["[CLS] hello [SEP] [MASK] [UNK] [PAD]", "a [MASK]", "the [MASK] is", "x[MASK]y [mask]",
                 "[MASK][MASK] [ MASK] [MASK", "Café[SEP]naïve\x00[CLS]", "[MA\x00SK] 中[MASK]文", ""]


@pytest.mark.parametrize("split_special_tokens", [False, True])
def test_special_token_strings_in_text(vocab_path, split_special_tokens):
    """Default as Hugging Face: a literal "[MASK]" is the [MASK] id. split_special_tokens=True is
    Google's BERT (tokenization.py splits it as text), i.e. HF with split_special_tokens=True."""
    transformers = pytest.importorskip("transformers")
    hf = transformers.BertTokenizerFast(vocab=vocab_path, split_special_tokens=split_special_tokens)
    tokenizer = Tokenizer(vocab_path, split_special_tokens=split_special_tokens)
    ours = tokenizer.tokenize(SPECIAL_LINES).to_list()
    assert ours == hf_ids(hf, SPECIAL_LINES)
    assert (tokenizer.mask_id in ours[2]) == (not split_special_tokens)


def test_max_chars_per_word(vocab_path, write_vocab_file):
    tokenizer = Tokenizer(vocab_path, max_chars_per_word=5)
    assert tokenizer.tokenize(["hello helloo"]).to_list() == [[7592, tokenizer.unk_id]]
    # Characters, not bytes: five 2-byte letters (10 bytes) are still a word of 5 characters.
    accents = Tokenizer(write_vocab_file(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "é", "##é"]),
                        lower_case=False, max_chars_per_word=5)
    assert accents.tokenize(["ééééé", "éééééé"]).to_list() == [[5, 6, 6, 6, 6], [1]]


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_tokenize_words_groups_pieces_into_words(vocab_path, shakespeare_lines, hard_cases, normalization):
    tokenizer = Tokenizer(vocab_path, normalization=normalization)
    lines = shakespeare_lines[:300] + hard_cases
    words = tokenizer.tokenize_words(lines)
    assert words.ragged_rank == 2 and words.dtype == tf.int32
    assert words.merge_dims(1, 2).to_list() == tokenizer.tokenize(lines).to_list()
    for line_words in words.to_list():
        for word in line_words:
            tokens = [tokenizer.id_to_token(i) for i in word]
            assert not tokens[0].startswith("##") and all(t.startswith("##") for t in tokens[1:])
    words = tokenizer.tokenize_words(["unaffable, cat"]).to_list()[0]
    assert [[tokenizer.id_to_token(i) for i in word] for word in words] == [
        ["una", "##ffa", "##ble"], [","], ["cat"]]


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_shapes_dtypes_and_scalars(vocab_path, normalization):
    tokenizer = Tokenizer(vocab_path, normalization=normalization)
    batch = tokenizer.tokenize(tf.constant(["Hello world!", "", "hi"]))
    assert isinstance(batch, tf.RaggedTensor) and batch.dtype == tf.int32
    assert batch.to_list() == [[7592, 2088, 999], [], [7632]]
    scalar = tokenizer.tokenize("Hello world!")
    assert scalar.shape.rank == 1 and scalar.numpy().tolist() == [7592, 2088, 999]
    assert tokenizer.tokenize_words("Hello world!").to_list() == [[7592], [2088], [999]]
    assert tokenizer.tokenize([]).to_list() == []
    with pytest.raises(ValueError, match="scalar string or a \\[batch\\] vector"):
        tokenizer.tokenize([["a"]])
    with pytest.raises(ValueError, match="tf.string"):
        tokenizer.tokenize(tf.constant([1, 2]))


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_in_tf_function_and_dataset_map(vocab_path, normalization):
    tokenizer = Tokenizer(vocab_path, normalization=normalization)
    lines = ["To be, or not to be: that is the question.", "Ay, there's the rub", ""]
    eager = tokenizer.tokenize(lines).to_list()

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def graph_tokenize(texts):
        return tokenizer.tokenize(texts)

    assert graph_tokenize(tf.constant(lines)).to_list() == eager
    dataset = tf.data.Dataset.from_tensor_slices(lines).map(tokenizer.tokenize)
    assert [ids.tolist() for ids in dataset.as_numpy_iterator()] == eager
    words = tf.data.Dataset.from_tensor_slices(lines).batch(3).map(tokenizer.tokenize_words)
    assert next(iter(words)).to_list() == tokenizer.tokenize_words(lines).to_list()


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_detokenize_round_trip(vocab_path, normalization):
    tokenizer = Tokenizer(vocab_path, normalization=normalization)
    text = "the unaffable cat sat on the mat , didn ' t it ?"
    ids = tokenizer.tokenize([text, "hello"])
    assert "##" in tokenizer.id_to_token(ids[0][2].numpy())  # "unaffable" is split into pieces
    assert tokenizer.detokenize(ids).numpy().tolist() == [text.encode(), b"hello"]
    assert tokenizer.detokenize(ids[1]).numpy() == b"hello"  # rank 1 -> scalar
    padded = ids.to_tensor(default_value=tokenizer.pad_id)  # dense, [PAD] on the right is dropped
    assert tokenizer.detokenize(padded).numpy().tolist() == [text.encode(), b"hello"]
    assert tokenizer.detokenize([[tokenizer.cls_id, 7592, tokenizer.sep_id]]).numpy().tolist() == [
        b"[CLS] hello [SEP]"]


def test_special_ids_and_lookups(vocab_path):
    tokenizer = Tokenizer(vocab_path)
    assert (tokenizer.pad_id, tokenizer.unk_id, tokenizer.cls_id, tokenizer.sep_id, tokenizer.mask_id) == (
        0, 100, 101, 102, 103)
    assert tokenizer.vocab_size == len(tokenizer.vocab) == 30522
    assert tokenizer.lower_case is True and tokenizer.vocab_path == vocab_path
    assert tokenizer.token_to_id("hello") == 7592 and tokenizer.id_to_token(7592) == "hello"
    assert tokenizer.token_to_id("[MASK]") == 103 and tokenizer.id_to_token(np.int32(101)) == "[CLS]"
    with pytest.raises(KeyError, match="not in the vocabulary"):
        tokenizer.token_to_id("notatoken!!")
    with pytest.raises(IndexError, match="30522 tokens"):
        tokenizer.id_to_token(30522)
    assert isinstance(tokenizer.vocab_asset, tf.saved_model.Asset)


def test_tiny_vocab_special_ids_follow_the_file(tiny_vocab, write_vocab_file):
    tokenizer = Tokenizer(tiny_vocab)
    assert (tokenizer.pad_id, tokenizer.unk_id, tokenizer.cls_id, tokenizer.sep_id, tokenizer.mask_id) == (
        0, 1, 2, 3, 4)
    assert tokenizer.tokenize("The unaffable cat! dog").numpy().tolist() == [5, 8, 9, 10, 6, 13, 1]
    shuffled = write_vocab_file(["the", "[MASK]", "[SEP]", "[CLS]", "[UNK]", "[PAD]"], "shuffled.txt")
    tokenizer = Tokenizer(shuffled)
    assert (tokenizer.pad_id, tokenizer.unk_id, tokenizer.cls_id, tokenizer.sep_id, tokenizer.mask_id) == (
        5, 4, 3, 2, 1)


def test_missing_vocab_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        Tokenizer(str(tmp_path / "nope.txt"))


@pytest.mark.parametrize("missing", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
def test_vocab_missing_special_token_is_named(write_vocab_file, missing):
    tokens = [t for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the"] if t != missing]
    with pytest.raises(ValueError, match=r"lacks the special token\(s\) " + missing.replace("[", r"\[")):
        Tokenizer(write_vocab_file(tokens))


def test_empty_non_utf8_and_duplicate_vocab(tmp_path, write_vocab_file):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        Tokenizer(str(empty))
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncafé\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not valid UTF-8.*line 6"):
        Tokenizer(str(latin1))
    duplicate = write_vocab_file(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "a"], "dup.txt")
    with pytest.raises(ValueError, match="'a' twice \\(lines 6 and 7\\)"):
        Tokenizer(duplicate)


def test_bad_arguments(tiny_vocab):
    with pytest.raises(ValueError, match="normalization='nfkc' is not supported"):
        Tokenizer(tiny_vocab, normalization="nfkc")
    with pytest.raises(ValueError, match="max_chars_per_word"):
        Tokenizer(tiny_vocab, max_chars_per_word=0)


def test_max_pieces_looks_up_only_the_words_in_reach(tokenizer, hf_uncased, hard_cases):
    """Issue 44: a Preprocessor asks only for its seq_length pieces; words past them are not looked up, and
    the first max_pieces ids equal BertTokenizerFast's (all of them where the text fits)."""
    texts = hard_cases + ["naïve " * 400, "é" * 5000 + " x", "[MASK] " * 30]
    got = tokenizer.tokenize(texts, max_pieces=12).to_list()
    for text, ids, reference in zip(texts, got, hf_ids(hf_uncased, texts)):
        assert ids[:12] == reference[:12] and (len(reference) > 12 or ids == reference), text
    assert len(got[-3]) < 50  # 400 words in, the words past reach never looked up
