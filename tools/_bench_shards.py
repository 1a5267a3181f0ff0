"""`tools/benchmark.py pipeline --shards [DIR]`: the shard reader (`keras_bert.data.ShardReader`, NumPy only)
reading and masking batches, in tokens per second per core (issue 41's goal: >= 80k tokens/s per core at
seq 128, an eighth of a BERT-base step at 45 % MFU on an H100). Run it pinned to one core to measure one:
`taskset -c 0 python tools/benchmark.py pipeline --shards`.

Without DIR, shards of the default corpus are written once (tools/write_shards.py, `--seq_length`) under
`--scale_dir`/shards-<seq_length>. Each setting reads `--shard_batches` batches of `--batch_size` rows after one
warm-up batch; the tokens counted are rows x seq_length (what a step consumes, padding included) and, in
brackets, the real ones.
"""

import os
import time

from _bench_common import cpu_seconds


def bench_shards(args, cores):
    """Prints tokens/s (per core) and tokens per CPU-second of the shard reader, with and without whole words."""
    from keras_bert.data.shard_reader import ShardReader

    folder = args.shards if args.shards != "default" else _default_shards(args)
    print(f"shard reader benchmark: {folder}, seq_length {args.seq_length}, batch {args.batch_size}, "
          f"{cores} CPU core(s), load average {os.getloadavg()[0]:.1f}")
    results = {}
    for whole_words in (False, True):
        reader = ShardReader(folder, args.batch_size, max_predictions_per_seq=args.max_predictions,
                             whole_word_masking=whole_words)
        if reader.seq_length != args.seq_length:
            raise SystemExit(f"{folder} holds rows of {reader.seq_length} tokens, not --seq_length {args.seq_length}")
        reader.batch(0)  # warm-up: the first pass's order, page cache
        runs = []
        for _ in range(max(1, args.repeats)):
            start, cpu, real = time.perf_counter(), cpu_seconds(), 0
            for features, _ in reader.batches(1, 1 + args.shard_batches):
                real += int(features["input_mask"].sum())
            runs.append((time.perf_counter() - start, cpu_seconds() - cpu, real))
        wall, cpu, real = min(runs)
        tokens = args.shard_batches * args.batch_size * reader.seq_length
        name = "whole-word" if whole_words else "token"
        results[name] = tokens / wall / cores
        print(f"  {name} masking: {tokens / wall:,.0f} tokens/s ({real / wall:,.0f} real), "
              f"{tokens / wall / cores:,.0f} tokens/s per core, {tokens / cpu:,.0f} tokens per CPU-second "
              f"({args.shard_batches} batches in {wall:.2f} s)")
    print(f"goal >= 80,000 tokens/s per core at seq 128: token masking {results['token']:,.0f}, "
          f"whole-word {results['whole-word']:,.0f} (load average {os.getloadavg()[0]:.1f})")
    return results


def _default_shards(args):
    """Shards of the default corpus at --seq_length, written once under --scale_dir."""
    folder = os.path.join(args.scale_dir, f"shards-{args.seq_length}")
    if not os.path.exists(os.path.join(folder, "shards.json")):
        import keras_bert
        from keras_bert.data import shakespeare_files, write_shards

        print(f"Writing shards of the default corpus to {folder} (once) ...")
        write_shards(shakespeare_files(), keras_bert.TextConfig.from_dir(args.model_dir), folder,
                     seq_length=args.seq_length, num_shards=8)
    return folder
