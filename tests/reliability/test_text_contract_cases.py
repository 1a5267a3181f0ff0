"""Bad input to the tokenizer and the text contract: one row per case, a one-line error that names it."""

import json

import pytest
import tensorflow as tf

from keras_bert import TextConfig, Tokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("contract")
    (path / "vocab.txt").write_text("".join(t + "\n" for t in VOCAB), encoding="utf-8")
    return path


def write(folder, name, content):
    sub = folder / name.replace(".", "_")
    sub.mkdir(exist_ok=True)
    (sub / "vocab.txt").write_text((folder / "vocab.txt").read_text(encoding="utf-8"), encoding="utf-8")
    (sub / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return sub


def in_graph_detokenize(tokenizer, ids):
    return tf.function(tokenizer.detokenize)(tf.constant(ids))


# (case, call(tokenizer, folder), expected exception, message fragment)
CASES = [
    ("detokenize id >= vocab size", lambda t, f: t.detokenize([[5, 8]]), ValueError,
     "token id 8, outside the vocabulary [0, 8)"),
    ("detokenize negative id", lambda t, f: t.detokenize([-1, 5]), ValueError,
     "token id -1, outside the vocabulary [0, 8)"),
    ("detokenize bad id in a graph", lambda t, f: in_graph_detokenize(t, [[5, 99]]),
     tf.errors.InvalidArgumentError, "token ids must be in [0, vocab_size=8)"),
    ("tokenize(None)", lambda t, f: t.tokenize(None), ValueError, "Tokenizer got None instead of text"),
    ("unknown normalization", lambda t, f: TextConfig(f / "vocab.txt", normalization="nfkc"),
     ValueError, "normalization='nfkc' is not supported"),
    ("max_seq_length 1", lambda t, f: TextConfig(f / "vocab.txt", max_seq_length=1), ValueError,
     "max_seq_length must be >= 2"),
    ("flag contradicts the contract",
     lambda t, f: TextConfig(f / "vocab.txt", source="x/text_config.json").override(False, "--no_lower_case"),
     ValueError, "--no_lower_case asks for lower_case=False but the model's text contract (x/text_config.json)"),
    ("folder without vocab.txt", lambda t, f: TextConfig.from_dir(f / "missing"), FileNotFoundError,
     "has no vocab.txt"),
    ("corrupt text_config.json", lambda t, f: TextConfig.from_dir(write(f, "text_config.json", "{")),
     ValueError, "text_config.json is not valid JSON"),
    ("unknown text_config field",
     lambda t, f: TextConfig.from_dir(write(f, "text_config.json", {"lowercase": True})), ValueError,
     "has unknown field(s) ['lowercase']"),
    ("other special tokens",
     lambda t, f: TextConfig.from_dir(write(f, "tokenizer_config.json", {"mask_token": "<mask>"})),
     ValueError, "sets mask_token='<mask>'; keras_bert supports BERT's special tokens"),
    ("HF strip_accents without lowercase",
     lambda t, f: TextConfig.from_dir(write(f, "tokenizer_config.json",
                                            {"do_lower_case": False, "strip_accents": True})),
     ValueError, "sets strip_accents=True with lowercase=False"),
    ("HF without CJK splitting",
     lambda t, f: TextConfig.from_dir(write(f, "tokenizer_config.json", {"tokenize_chinese_chars": False})),
     ValueError, "turns off tokenize_chinese_chars"),
]


@pytest.mark.parametrize("case, call, error, fragment", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_a_clear_error(folder, case, call, error, fragment):
    tokenizer = Tokenizer(folder / "vocab.txt")
    with pytest.raises(error) as raised:
        call(tokenizer, folder)
    assert fragment in str(raised.value), case
