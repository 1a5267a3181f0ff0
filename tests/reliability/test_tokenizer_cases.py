"""Hostile tokenizer folders (issue 44 §3, §7), one row per case: the ids AutoTokenizer gives from the same
folder (transformers reads tokenizer.json first, added tokens included), or one line naming the file."""

import json
import os

import pytest

from keras_bert.text import TextConfig
from tests.reliability.conftest import assert_api_error
from tests.text.conftest import HARD_CASES, shakespeare_lines, trained_byte_bpe  # noqa: F401 (fixtures)

TEXTS = ["a covid19 case", "", " ", "\x00\x07\x1b\x7f", "a\u200bb\ufeff", "tab\t\tnl\n\n  x", "naïve café 東京 😀"]


@pytest.fixture(scope="module")
def files(trained_byte_bpe, tmp_path_factory):  # noqa: F811
    """The trained BPE's folder, and a RoBERTa folder of it with 2 tokens added by transformers 5."""
    transformers = pytest.importorskip("transformers")
    folder = trained_byte_bpe[0]
    added = tmp_path_factory.mktemp("added")
    tokenizer = transformers.RobertaTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    tokenizer.add_tokens(["covid19", "Hamlet's ghost"])
    tokenizer.save_pretrained(added)
    return folder, added


def make(tmp_path, name, sources):
    """A folder `name` with files: path (copied) or bytes."""
    out = tmp_path / name
    out.mkdir()
    for file, source in sources.items():
        (out / file).write_bytes(source if isinstance(source, bytes) else source.read_bytes())
    return out


def stale_pair(f, tmp_path):
    """The added-tokens folder with a stale vocab.json + merges.txt beside its tokenizer.json."""
    merges = (f[0] / "merges.txt").read_bytes().splitlines()
    vocab = json.loads((f[0] / "vocab.json").read_text(encoding="utf-8"))
    stale = {token: (i + 7) % len(vocab) for token, i in vocab.items()}
    return make(tmp_path, "stale", {"tokenizer.json": f[1] / "tokenizer.json",
                                    "tokenizer_config.json": f[1] / "tokenizer_config.json",
                                    "vocab.json": json.dumps(stale).encode(),
                                    "merges.txt": b"\n".join(merges[:1] + merges[50:]) + b"\n"})


def cut_at_multibyte(path):
    content = path.read_bytes()
    return content[:content.index(b"\xc4") + 1]


# (case, folder(files, tmp_path), fragments of the one-line error)
REFUSED = [
    ("merges.txt cut inside a UTF-8 character",  # before: UnicodeDecodeError naming no file
     lambda f, t: make(t, "cut", {"vocab.json": f[0] / "vocab.json", "merges.txt": cut_at_multibyte(f[0] / "merges.txt")}),
     ("merges.txt: line", "is not UTF-8 text")),
    ("tokenizer.json cut inside a UTF-8 character",  # before: UnicodeDecodeError naming no file
     lambda f, t: make(t, "cut_json", {"tokenizer.json": cut_at_multibyte(f[0] / "tokenizer.json")}),
     ("tokenizer.json is not UTF-8 text",)),
    ("vocab.json cut mid-file",
     lambda f, t: make(t, "cut_vocab", {"vocab.json": (f[0] / "vocab.json").read_bytes()[:500],
                                         "merges.txt": f[0] / "merges.txt"}),
     ("vocab.json is not valid JSON",)),
    ("sentencepiece.bpe.model cut mid-file",  # before: TensorFlow's error, many lines
     lambda f, t: make(t, "cut_sp", {"sentencepiece.bpe.model": b"\x0a\x05abc"}),
     ("sentencepiece.bpe.model is not a SentencePiece model",)),
    ("a tokenizer.json keras_bert cannot run",
     lambda f, t: make(t, "wordlevel", {"tokenizer.json": b'{"model": {"type": "WordLevel", "vocab": {}}}'}),
     ("holds a WordLevel tokenizer",)),
]


def test_reads_what_transformers_reads_and_writes_it_back(files, tmp_path):
    """A stale vocab.json + merges.txt beside tokenizer.json (before: 1 of 7 lines equal) and tokens added with
    add_tokens (before: never split off) read as AutoTokenizer reads them; saved back, they stay."""
    transformers = pytest.importorskip("transformers")
    folder = stale_pair(files, tmp_path)
    expected = transformers.AutoTokenizer.from_pretrained(str(folder))(TEXTS, add_special_tokens=False)["input_ids"]
    config = TextConfig.from_dir(folder)
    assert config.tokenizer().tokenize(TEXTS).to_list() == expected and 800 in expected[0]  # covid19's id
    config.save(tmp_path / "out", format="huggingface")
    again = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "out"))
    assert again(TEXTS, add_special_tokens=False)["input_ids"] == expected


@pytest.mark.parametrize("case, build, fragments", REFUSED, ids=[c[0] for c in REFUSED])
def test_a_damaged_file_is_one_line_naming_it(files, tmp_path, case, build, fragments):
    folder = build(files, tmp_path)
    assert_api_error(lambda: TextConfig.from_dir(folder).tokenizer(), ValueError, *fragments)


def test_a_tool_refuses_a_damaged_tokenizer_in_one_line_and_writes_nothing(files, tiny_checkpoint, tmp_path):
    """The rows above as a user meets them: a tool given the folder. Every REFUSED row is a ValueError of the one
    `TextConfig.from_dir(...).tokenizer()` read, which the tools turn into exit 2 and one line; this runs the tool
    once, on the layout transformers 5 saves (tokenizer.json only, here cut inside a character) beside a model's
    weights: nothing written to --output, no staging folder left."""
    import keras_bert
    from tests.reliability.conftest import assert_one_line_error, run_subprocess

    folder = tmp_path / "model"
    keras_bert.save_checkpoint(keras_bert.load_checkpoint(tiny_checkpoint, model="encoder"), folder,
                               format="huggingface")
    (folder / "vocab.txt").unlink()
    (folder / "tokenizer.json").write_bytes(cut_at_multibyte(files[0] / "tokenizer.json"))
    result = run_subprocess("convert_checkpoint", ["--input", folder, "--output", tmp_path / "out", "--format", "keras"])
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "convert_checkpoint.py: error:", "tokenizer.json is not UTF-8 text")
    assert sorted(os.listdir(tmp_path)) == ["model"]
    # export.py refuses it before it makes anything: no --base_dir root (it used to leave an empty one).
    result = run_subprocess("export", [folder, "--base_dir", tmp_path / "exports" / "root", "--formats", "savedmodel"])
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "export.py: error:", "tokenizer.json is not UTF-8 text")
    assert sorted(os.listdir(tmp_path)) == ["model"]
