"""ModernBERT: keras_bert's `ModernBertEncoder` against transformers' `ModernBertModel` (sdpa, torch CPU).

    python tools/benchmark.py family              # ModernBERT-base shape (22 layers, hidden 768): minutes
    python tools/benchmark.py family --small      # a tiny model, seconds (what the test runs)
    KERAS_BACKEND=jax python tools/benchmark.py family

Both sides load the same seeded folder: a `transformers.ModernBertModel` of ModernBERT-base's shape
(hidden 768, 22 layers, 12 heads, intermediate 1152, vocab 50368, a global layer every 3rd,
local_attention 128), initialized with a fixed seed and written once by `save_pretrained` to
`--cache_dir`. Same thread count for torch and TensorFlow. Measured:

1. throughput: `--rows` random rows of lengths `--lengths MIN,MAX` in batches of `--batch_size`,
   after a warm-up batch, timed round robin (`--repeats`, best pass; with XLA or JAX a batch shape
   not seen yet compiles in the first pass): transformers pads each batch to its longest row;
   `keras` pads it to the longest rounded up to `--pad_multiple` (bounded recompiles); `keras_grouped`
   splits each batch by length (`--group_width`-token buckets) so short rows skip the long rows' padding;
2. one `--long`-token forward, each side in a fresh process: time (after a short warm-up call) and
   peak resident memory (VmHWM: whole process, and added during the forward);
3. agreement: max |difference| of `last_hidden_state` on real tokens.

Ours runs as one compiled function: `tf.function` (`--jit_compile`: XLA) on TensorFlow, `jax.jit`
on JAX, eager on PyTorch. Prints the backend, threads, the CPU load before and after, and ratios.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from _bench_common import cpu_load, memory_mib, set_threads, timed  # noqa: E402  (tools/ is the script's folder)
from keras_bert.cli import ArgumentParser, positive_int, run_tool  # noqa: E402

SPECIAL = dict(pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2)
SIZES = {"base": dict(vocab_size=50368, hidden_size=768, intermediate_size=1152, num_hidden_layers=22,
                      num_attention_heads=12, global_attn_every_n_layers=3, local_attention=128),
         "small": dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
                       num_attention_heads=4, global_attn_every_n_layers=3, local_attention=16)}
DEFAULTS = {"base": dict(lengths="64,1024", long=8192, rows=16, repeats=2, group_width=256, pad_multiple=64),
            "small": dict(lengths="16,64", long=256, rows=8, repeats=1, group_width=16, pad_multiple=8)}
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "keras_bert", "bench_family")


def length_range(text):
    """`MIN,MAX` -> (min, max), 1 <= min <= max."""
    try:
        low, high = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MIN,MAX (e.g. 64,1024)") from None
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1 <= MIN <= MAX")
    return low, high


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--small", action="store_true", help="a tiny model and sizes (a quick check)")
    parser.add_argument("--lengths", type=length_range, help="row lengths MIN,MAX (default 64,1024)")
    parser.add_argument("--rows", type=positive_int, help="rows per throughput pass (default 16)")
    parser.add_argument("--batch_size", type=positive_int, default=8, help="rows per call (default 8)")
    parser.add_argument("--repeats", type=positive_int, help="timed passes, best kept (default 2)")
    parser.add_argument("--long", type=int, help="tokens of the long forward (default 8192; 0: skip it)")
    parser.add_argument("--long_repeats", type=positive_int, default=1,
                        help="timed long forwards per side, best kept (default 1; with XLA the first compiles)")
    parser.add_argument("--pad_multiple", type=positive_int,
                        help="ours pads a batch to a multiple of this (default 64; --small 8)")
    parser.add_argument("--group_width", type=positive_int,
                        help="keras_grouped: rows in one bucket of this many lengths share a call (default 256)")
    parser.add_argument("--jit_compile", choices=("on", "off"), default="off",
                        help="TensorFlow backend: compile ours with XLA (default off)")
    parser.add_argument("--threads", type=positive_int, default=os.cpu_count(),
                        help="threads for torch and TensorFlow (default: the CPU count)")
    parser.add_argument("--cache_dir", default=CACHE, help=f"where the seeded folders live (default {CACHE})")
    args = parser.parse_args(argv)
    args.size = "small" if args.small else "base"
    for name, value in DEFAULTS[args.size].items():
        if getattr(args, name) is None:
            setattr(args, name, length_range(value) if name == "lengths" else value)
    if args.long < 0:
        parser.error(f"--long {args.long}: give a token count >= 1, or 0 to skip the long forward")
    return args


def seeded_folder(cache_dir, size):
    """The seeded ModernBertModel of SIZES[size], written by `save_pretrained` on first use."""
    folder = os.path.join(cache_dir, f"modernbert_{size}_seed0")
    if not os.path.isfile(os.path.join(folder, "model.safetensors")):
        import torch
        import transformers

        transformers.utils.logging.disable_progress_bar()
        torch.manual_seed(0)
        config = transformers.ModernBertConfig(**SIZES[size], **SPECIAL)
        transformers.ModernBertModel(config).eval().save_pretrained(folder)
    return folder


def keras_backend():
    import keras

    return keras.backend.backend()


def make_rows(count, lengths, vocab_size, seed=0):
    """`count` random id rows (ids >= 3: no special tokens) with lengths uniform in `lengths`."""
    rng = np.random.default_rng(seed)
    return [rng.integers(3, vocab_size, n).astype("int32") for n in rng.integers(lengths[0], lengths[1] + 1, count)]


def pad(rows, multiple=1):
    """Right-padded encoder inputs for `rows`, length = the longest rounded up to `multiple`."""
    seq = -(-max(len(r) for r in rows) // multiple) * multiple
    mask = np.array([[1] * len(r) + [0] * (seq - len(r)) for r in rows], "int32")
    ids = np.array([np.pad(r, (0, seq - len(r))) for r in rows], "int32")
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)}


def groups(rows, width):
    """Indices of `rows` split by length bucket (ceil(len / width)), shortest bucket first."""
    buckets = {}
    for index, row in enumerate(rows):
        buckets.setdefault(-(-len(row) // width), []).append(index)
    return [buckets[key] for key in sorted(buckets)]


def hf_runner(folder, attn_implementation="sdpa"):
    """batch -> last_hidden_state (numpy) of transformers' ModernBertModel (tools/_modernbert_parity.py: eager too)."""
    import torch
    import transformers

    transformers.utils.logging.disable_progress_bar()
    model = transformers.ModernBertModel.from_pretrained(folder, attn_implementation=attn_implementation).eval()

    def run(batch):
        with torch.no_grad():
            return model(input_ids=torch.from_numpy(batch["input_word_ids"]).long(),
                         attention_mask=torch.from_numpy(batch["input_mask"])).last_hidden_state.numpy()
    return run


def keras_runner(folder, jit_compile):
    """batch -> sequence_output (numpy) of our encoder as one compiled function of the backend."""
    import keras

    from keras_bert.models.modernbert import encoder_from_huggingface

    encoder, _ = encoder_from_huggingface(folder)  # its weights file is read one tensor at a time
    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf

        function = tf.function(lambda b: encoder(b, training=False)["sequence_output"], autograph=False,
                               jit_compile=jit_compile, reduce_retracing=not jit_compile)
        return lambda batch: function({k: tf.constant(v) for k, v in batch.items()}).numpy()
    if backend == "jax":
        import jax

        weights = ([v.value for v in encoder.trainable_variables], [v.value for v in encoder.non_trainable_variables])

        @jax.jit
        def jitted(trainable, non_trainable, batch):
            return encoder.stateless_call(trainable, non_trainable, batch, training=False)[0]["sequence_output"]
        return lambda batch: np.asarray(jitted(*weights, batch))
    import torch  # the PyTorch backend: eager

    return torch.no_grad()(lambda batch: keras.ops.convert_to_numpy(encoder(batch)["sequence_output"]))


def run_rows(run, rows, batch_size, multiple, width=None):
    """Every row's output `(len, hidden)` (real tokens only) and the tokens computed (padding included)."""
    outputs, computed = [None] * len(rows), 0
    for start in range(0, len(rows), batch_size):
        batch = list(range(start, min(start + batch_size, len(rows))))
        parts = [batch] if width is None else [[batch[i] for i in g] for g in groups([rows[i] for i in batch], width)]
        for part in parts:
            inputs = pad([rows[i] for i in part], multiple)
            out = run(inputs)
            computed += inputs["input_mask"].size
            for i, index in enumerate(part):
                outputs[index] = out[i, :len(rows[index])]
    return outputs, computed


def throughput(args, folder, rows):
    """{name: (best real tokens/s, tokens computed, outputs)} for transformers and ours, round robin."""
    contestants = {"transformers": (hf_runner(folder), 1, None)}
    ours = keras_runner(folder, args.jit_compile == "on")
    contestants["keras"] = (ours, args.pad_multiple, None)
    contestants["keras_grouped"] = (ours, args.pad_multiple, args.group_width)
    real = sum(len(r) for r in rows)
    results = {}
    for name, (run, multiple, width) in contestants.items():  # warm-up on the first batch: tracing, allocator
        _, seconds, _ = timed(run_rows, run, rows[:args.batch_size], args.batch_size, multiple, width)
        print(f"  {name}: warm-up batch {seconds:.1f} s", flush=True)
    for _ in range(args.repeats):
        for name, (run, multiple, width) in contestants.items():
            (outputs, computed), seconds, _ = timed(run_rows, run, rows, args.batch_size, multiple, width)
            best = max(results.get(name, (0.0,))[0], real / seconds)
            results[name] = (best, computed, outputs)
    return results


def measure_long(side, folder, out_path, length, threads, jit_compile, repeats):
    """In a fresh process: one `length`-token forward of `side`; saves its output, prints JSON stats."""
    import time

    set_threads(int(threads), tensorflow=side == "keras" and keras_backend() == "tensorflow", torch=side != "keras")
    vocab = json.load(open(os.path.join(folder, "config.json"), encoding="utf-8"))["vocab_size"]
    run = keras_runner(folder, jit_compile == "on") if side == "keras" else hf_runner(folder)
    for warm_up in (32, 48):  # graph building (a shape-relaxed graph after two lengths), allocator
        run(pad(make_rows(1, (warm_up, warm_up), vocab, seed=1)))
    batch = pad(make_rows(1, (int(length), int(length)), vocab, seed=7))
    before, times = memory_mib(), []
    for _ in range(int(repeats)):
        start = time.perf_counter()
        out = run(batch)
        times.append(time.perf_counter() - start)
    np.save(out_path, out[0])
    print(json.dumps({"first_s": times[0], "best_s": min(times), "peak_mib": memory_mib(),
                      "added_mib": memory_mib() - before}))


def long_forward(args, folder, tmp):
    """{side: (stats, output)} of the long forward, each side in a fresh process."""
    results = {}
    for side in ("transformers", "keras"):
        out_path = os.path.join(tmp, f"{side}.npy")
        command = [sys.executable, os.path.abspath(__file__), "--measure_long", side, folder, out_path,
                   str(args.long), str(args.threads), args.jit_compile, str(args.long_repeats)]
        done = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        if done.returncode:
            raise SystemExit(f"the {side} long forward failed:\n{done.stderr[-3000:]}")
        results[side] = (json.loads(done.stdout.strip().splitlines()[-1]), np.load(out_path))
    return results


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--measure_long"]:
        return measure_long(*argv[1:])
    args = parse_args(argv)

    backend = keras_backend()
    set_threads(args.threads, tensorflow=backend == "tensorflow", torch=True)
    import torch

    folder = seeded_folder(args.cache_dir, args.size)
    shape = SIZES[args.size]
    print(f"ModernBERT {args.size} ({shape['num_hidden_layers']} layers, hidden {shape['hidden_size']}) at {folder}")
    print(f"backend {backend}{' + XLA' if backend == 'tensorflow' and args.jit_compile == 'on' else ''}; "
          f"threads: torch {torch.get_num_threads()}, ours {args.threads}; transformers attn sdpa")
    print(f"CPU before: {cpu_load()}", flush=True)
    rows = make_rows(args.rows, args.lengths, shape["vocab_size"])
    real = sum(len(r) for r in rows)
    print(f"throughput: {args.rows} rows of {args.lengths[0]}-{args.lengths[1]} tokens ({real} real), "
          f"batch {args.batch_size}, best of {args.repeats}", flush=True)
    speeds = throughput(args, folder, rows)
    peer = speeds["transformers"][0]
    for name, (speed, computed, outputs) in speeds.items():
        diff = max(float(np.abs(a - b).max()) for a, b in zip(outputs, speeds["transformers"][2]))
        print(f"  {name:14s} {speed:9.1f} tokens/s {speed / peer:5.2f}x  computed {computed} tokens "
              f"({computed / real:.2f}x real)  max |diff| {diff:.2e}")
    best = max(("keras", "keras_grouped"), key=lambda n: speeds[n][0])
    print(f"throughput ratio (keras / transformers): {speeds['keras'][0] / peer:.2f}x padded, "
          f"{speeds['keras_grouped'][0] / peer:.2f}x grouped (best: {best})", flush=True)
    if args.long:
        print(f"long forward: {args.long} tokens, batch 1, each side in a fresh process, "
              f"best of {args.long_repeats}", flush=True)
        long = long_forward(args, folder, tempfile.mkdtemp(prefix="bench_family_"))
        for side, (stats, _) in long.items():
            print(f"  {side:14s} {stats['best_s']:7.2f} s (first {stats['first_s']:.2f} s)  peak "
                  f"{stats['peak_mib']:.0f} MiB, added {stats['added_mib']:.0f} MiB")
        (ours, out), (theirs, hf_out) = long["keras"], long["transformers"]
        print(f"long ratio (transformers / keras): time {theirs['best_s'] / ours['best_s']:.2f}x, peak memory "
              f"{theirs['peak_mib'] / ours['peak_mib']:.2f}x, added memory "
              f"{theirs['added_mib'] / max(ours['added_mib'], 1):.2f}x; max |diff| {np.abs(out - hf_out).max():.2e}")
    print(f"CPU after:  {cpu_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(run_tool(main))
