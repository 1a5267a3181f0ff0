"""bench_pipeline --scale: does the input pipeline hold at corpus scale? Corpora of several sizes,
each read by a fresh process (`bench_pipeline.py --scale_worker`) whose memory and batches per
second are compared. See tools/bench_pipeline.py."""

import json
import os
import random
import subprocess
import sys
import time

from _bench_common import cpu_load, memory_mib


def scale_corpus(directory, megabytes, file_megabytes):
    """`megabytes` of the default corpus's plays (BERT format) reshuffled into files; made once."""
    from keras_bert.data import shakespeare_bert_files

    folder = os.path.join(directory, f"{megabytes}mb_{file_megabytes:g}mb_files")
    done = os.path.join(folder, "DONE")
    if not os.path.exists(done):
        os.makedirs(folder, exist_ok=True)
        plays = []
        for path in shakespeare_bert_files():
            with open(path, encoding="utf-8") as f:
                plays.append(f.read().strip() + "\n\n")
        rng, written, index = random.Random(megabytes), 0, 0
        while written < megabytes * 1e6:
            with open(os.path.join(folder, f"part-{index:05d}.txt"), "w", encoding="utf-8") as f:
                size = 0
                while size < file_megabytes * 1e6:
                    for play in rng.sample(plays, len(plays)):
                        size += f.write(play)
                        if size >= file_megabytes * 1e6:
                            break
            written, index = written + size, index + 1
        open(done, "w").close()
    return sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".txt"))


def scale_worker(folder, vocab_path, batches):
    """In a fresh process: `batches` batches of `pretraining_dataset` over `folder`; prints JSON."""
    from keras_bert import Tokenizer, pretraining_dataset

    files = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".txt"))
    start = time.perf_counter()
    # A shuffle buffer of ~31 batches, so that most of the timed batches are made while timed.
    iterator = iter(pretraining_dataset(files, Tokenizer(vocab_path), input_format="bert",
                                        shuffle_buffer=1000, seed=0))
    next(iterator)
    first = time.perf_counter()
    for _ in range(batches - 1):
        next(iterator)
    end = time.perf_counter()
    print(json.dumps(dict(VmRSS=memory_mib("VmRSS"), VmHWM=memory_mib(), first_batch_s=first - start,
                          batches_per_s=(batches - 1) / (end - first))))


def bench_scale(args):
    """Pipeline memory and speed on corpora of `args.scale_sizes_mb`, a fresh process each."""
    results = {}
    for megabytes in args.scale_sizes_mb:
        files = scale_corpus(args.scale_dir, megabytes, args.scale_file_mb)
        command = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_pipeline.py"),
                   "--scale_worker",
                   os.path.dirname(files[0]), "--scale_batches", str(args.scale_batches),
                   "--model_dir", args.model_dir]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        r = results[megabytes] = json.loads(output.strip().splitlines()[-1])
        print(f"  {megabytes} MB corpus ({len(files)} files): RSS {r['VmRSS']:.0f} MiB "
              f"(peak {r['VmHWM']:.0f} MiB) after {args.scale_batches} batches; "
              f"{r['batches_per_s']:.1f} batches/s after the first (first batch "
              f"{r['first_batch_s']:.1f} s); {cpu_load()}", flush=True)
    small, large = results[min(results)], results[max(results)]
    print(f"{max(results)} MB vs {min(results)} MB: RSS {large['VmRSS'] / small['VmRSS']:.2f}x "
          f"(peak {large['VmHWM'] / small['VmHWM']:.2f}x; target within 25 %), throughput "
          f"{large['batches_per_s'] / small['batches_per_s']:.2f}x (target within 20 %)")
    return results
