"""Fixtures for the text tests: the MiniLM vocab, Hugging Face reference tokenizers, real lines."""

import os

import pytest

# Hand-written hard cases for tokenizer parity: punctuation, accents, CJK, control and zero-width
# characters, emoji, over-long words, whitespace runs and the characters where FastBertTokenizer's
# NFKC case folding departs from BERT (ß ™ … fullwidth ligatures \x07).
HARD_CASES = [
    "Hello, world!!! (What?) -- it's [fine]; {ok} <tag> $5 + 3 = 8 ^ `x` | ~y @a #b %c &d *e _f \\g /h",
    "Café naïve résumé coöperate Ångström façade piñata Æsir Œuvre",
    "ΟΔΟΣ Σίσυφος ΣΑΣ ἀρχή İstanbul ǅemal ﬁne ﬂow Straße ß ẞ",
    "中文字符測試，日本語のテキスト。한국어 텍스트 㐀 𠀀 豈 mixed中文english混合text",
    "zero\u200bwidth\u200cjoin\u200dner\ufeffbom\u2060wj soft\u00adhyphen",
    "bell\x07 null\x00 esc\x1b del\x7f nel\x85 vt\x0b ff\x0c tab\tnl\ncr\r end",
    "\x01\x02\x03\x04\x05\x06\x08\x0e\x0f\x10\x1f",
    "emoji 😀 🤖👍🏽 ❤️ 🇫🇷 family 👨‍👩‍👧 " + "\U0001F600" * 3 + "word",
    "a" * 101 + " short " + "b" * 100 + " " + "c" * 250,
    "x" * 201,
    "é" * 60 + " " + "É" * 101 + " " + "ü" * 99 + " " + "a\u0300" * 120,
    "   leading   and   trailing   whitespace   ",
    "tab\t\ttab  double \n\n newline",
    "nbsp\u00a0thin\u2009ideo\u3000line\u2028para\u2029ogham\u1680narrow\u202fmath\u205f",
    "™ … ‰ ½ ² ℃ № ℡ ㎏ ﬀ ﬃ ™™ ﬅ ﬆ",
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ ！？ ﾊﾝｶｸ ｶﾞ",
    "\ufffd replacement \ufffd\ufffd",
    "private\ue000use unassigned\u0378char \U000e0001tag \U0010fffd",
    "«guillemets» „quotes“ ‘single’ ¿qué? ¡sí! —dash– · • ‧ ※ § ¶ † ‡",
    "math ∑ ∫ √ ≠ ≤ ± × ÷ → ⇒ ∞ currency € £ ¥ ₹ ¢",
    "Ελληνικά Русский текст ЁЖИК العربية עברית हिन्दी ไทย क्ष ज्ञ عـربي",
    "combining e\u0301 a\u0308 n\u0303 o\u0302 stacked a\u0301\u0302\u0303 lone\u0301",
    "Greek question mark \u037e ano teleia \u0387 kelvin \u212a ohm \u2126 angstrom \u212b",
    "ǈ ǋ ǲ ᾈ ᾼ ῌ ŉ ǰ ΐ dotless ı dotted İ final ΣΣ ς \u0130\u0307 \u1e9e",
    "Hangul 가각 jamo 가 compat ㄱ 𝐁𝐨𝐥𝐝 𝕕𝕠𝕦𝕓𝕝𝕖 ⓒⓘⓡⓒⓛⓔ",
    "don't can't won't o'clock e.g. U.S.A. 3.14 1,000,000 10:30pm ##ing ## # ###",
    "",
    " ",
    "\x07",
    "\u200b",
]


@pytest.fixture(scope="session")
def hard_cases():
    return list(HARD_CASES)


@pytest.fixture(scope="session")
def vocab_path(minilm_dir):
    return os.path.join(minilm_dir, "vocab.txt")


@pytest.fixture(scope="session")
def hf_uncased(minilm_dir):
    """The checkpoint's own tokenizer.json (BertNormalizer lowercase, BertPreTokenizer, WordPiece)."""
    transformers = pytest.importorskip("transformers")
    return transformers.BertTokenizerFast(tokenizer_file=os.path.join(minilm_dir, "tokenizer.json"))


@pytest.fixture(scope="session")
def hf_cased(vocab_path):
    transformers = pytest.importorskip("transformers")
    return transformers.BertTokenizerFast(vocab=vocab_path, do_lower_case=False)


@pytest.fixture(scope="session")
def shakespeare_lines(shakespeare_files):
    """25,000+ real non-empty lines, every 10th line across all 78 texts."""
    lines = []
    for path in shakespeare_files:
        with open(path, encoding="utf-8") as f:
            lines += [line.rstrip("\n") for line in f if line.strip()]
    lines = lines[::10]
    assert len(lines) >= 10_000
    return lines


TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "un", "##aff",
              "##able", ",", ".", "!"]


@pytest.fixture
def write_vocab_file(tmp_path):
    """Returns `write(tokens, name="vocab.txt") -> path`, one token per line."""

    def write(tokens, name="vocab.txt"):
        path = tmp_path / name
        path.write_text("".join(t + "\n" for t in tokens), encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def tiny_vocab(write_vocab_file):
    """A 14-token vocabulary with the five special tokens."""
    return write_vocab_file(TINY_VOCAB)


@pytest.fixture(scope="session")
def trained_byte_bpe(tmp_path_factory, shakespeare_lines):
    """A byte-level BPE trained here with RoBERTa's settings (no prefix space, `<s> A </s></s> B </s>`,
    trimmed offsets): (folder with vocab.json, merges.txt, tokenizer.json; the `tokenizers` reference)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.processors import RobertaProcessing

    reference = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    reference.train_from_iterator(shakespeare_lines[:400] + HARD_CASES, vocab_size=800, min_frequency=2,
                                  special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                                  show_progress=False)
    reference.post_processor = RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True,
                                                 add_prefix_space=False)
    folder = tmp_path_factory.mktemp("byte_bpe")
    reference.save_model(str(folder))
    reference.save(str(folder / "tokenizer.json"))
    return folder, reference


@pytest.fixture(scope="session")
def byte_bpe_tokenizer(trained_byte_bpe):
    """keras_bert's ByteBpeTokenizer of `trained_byte_bpe`, shared: its graph traces once (seconds)."""
    from keras_bert.text import ByteBpeTokenizer

    return ByteBpeTokenizer(trained_byte_bpe[0] / "vocab.json", trained_byte_bpe[0] / "merges.txt")


@pytest.fixture(scope="session")
def trained_sentencepiece(tmp_path_factory, shakespeare_lines):
    """A SentencePiece unigram model trained here, as XLM-R's `sentencepiece.bpe.model`: (its folder,
    transformers' XLMRobertaTokenizer read from it)."""
    spm = pytest.importorskip("sentencepiece")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("sentencepiece")
    spm.SentencePieceTrainer.train(sentence_iterator=iter(shakespeare_lines[:400] + HARD_CASES),
                                   model_prefix=str(folder / "sp"), vocab_size=800, model_type="unigram",
                                   character_coverage=1.0, minloglevel=2)
    os.replace(folder / "sp.model", folder / "sentencepiece.bpe.model")
    os.remove(folder / "sp.vocab")
    # from_pretrained, not vocab_file=: transformers 5 ignores vocab_file (as it does BertTokenizerFast's).
    return folder, transformers.XLMRobertaTokenizer.from_pretrained(str(folder))
