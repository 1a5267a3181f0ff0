"""One-off measurement (not a tool): ModernBertEncoder against transformers' ModernBertModel.

Prints (1) the parity table: a seeded tiny ModernBERT (hidden 64, 3 layers: global, local, local;
local_attention 16, so a token sees +-8) written by `save_pretrained`, lengths 16..1,024 right-padded
(batch 2: full and ~60 %), max |difference| of `last_hidden_state` on real tokens, keras_bert against
HF eager and sdpa, and eager against sdpa (real tokens, and padded rows, which nobody should read);
(2) the same at 8,192 tokens with time and peak memory of each forward (each in a fresh process);
(3) one sliding-window attention layer (4 heads x 64, ModernBERT's +-64 window, 8,192 tokens): the
banded computation against a dense score matrix with the band mask.

    PYTHONPATH=. KERAS_BACKEND=tensorflow python tools/_modernbert_parity.py   # ~1-2 min of CPU
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from _bench_common import memory_mib  # noqa: E402  (tools/ is the script's folder)
from bench_family import hf_runner  # noqa: E402
from tests.models.modernbert.tiny_modernbert import padded_batch, save_seeded  # noqa: E402

LENGTHS = (16, 64, 128, 256, 512, 1024)
LONG = 8192
HEADS = 4  # ModernBERT-base has 12: the dense mask's ~3 GiB per score tensor would triple


def measure(kind, folder, out_path):
    """One 8,192-token forward in this fresh process: writes its output and prints time / peak memory."""
    batch = padded_batch(LONG, (LONG,), seed=7)
    if kind == "keras":
        from keras import ops

        from keras_bert.models.modernbert import encoder_from_huggingface

        encoder, _ = encoder_from_huggingface(folder)
        encoder(padded_batch(32, (32,)))  # warm up (graph building, allocator)
        run = lambda: ops.convert_to_numpy(encoder(batch)["sequence_output"])  # noqa: E731
    elif kind in ("eager", "sdpa"):
        forward = hf_runner(folder, kind)
        forward(padded_batch(32, (32,)))
        run = lambda: forward(batch)  # noqa: E731
    else:
        run = attention_only(kind)
    before = memory_mib()
    start = time.perf_counter()
    out = run()
    seconds = time.perf_counter() - start
    np.save(out_path, out)
    print(json.dumps({"kind": kind, "seconds": round(seconds, 2), "peak_mib": round(memory_mib()),
                      "added_peak_mib": round(memory_mib() - before)}))


def attention_only(kind):
    """One local attention layer (HEADS heads of 64, as ModernBERT-base's): "band"ed or "dense" masked."""
    from keras import ops

    from keras_bert.layers.windowed_attention import sliding_window_attention

    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(1, HEADS, LONG, 64)).astype("float32") * 0.125 for _ in range(3))
    mask = np.ones((1, LONG), "int32")
    if kind == "band":
        return lambda: ops.convert_to_numpy(sliding_window_attention(q, k, v, mask, 64))

    def dense():
        positions = ops.arange(LONG)
        band = ops.abs(positions[:, None] - positions[None, :]) <= 64  # (seq, seq)
        scores = ops.where(band, ops.einsum("bhqd,bhkd->bhqk", q, k), -1e30)  # (1, heads, seq, seq)
        return ops.convert_to_numpy(ops.einsum("bhqk,bhkd->bhqd", ops.softmax(scores, axis=-1), v))
    return dense


def run_measure(kind, folder, tmp):
    out_path = os.path.join(tmp, f"{kind}.npy")
    result = subprocess.run([sys.executable, __file__, "--measure", kind, folder, out_path],
                            capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if result.returncode:
        raise SystemExit(f"{kind} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1]), np.load(out_path)


def main():
    import keras

    from keras_bert.models.modernbert import encoder_from_huggingface

    tmp = tempfile.mkdtemp(prefix="modernbert_parity_")
    folder = save_seeded(os.path.join(tmp, "mlm"))
    encoder, _ = encoder_from_huggingface(folder)
    models = {impl: hf_runner(folder, impl) for impl in ("eager", "sdpa")}
    print(f"backend {keras.backend.backend()}; max |difference| of last_hidden_state, real tokens unless noted")
    print(f"{'length':>6} {'keras-eager':>12} {'keras-sdpa':>12} {'eager-sdpa':>12} {'eager-sdpa padded rows':>24}")
    for length in LENGTHS:
        batch = padded_batch(length, (length, max(1, length * 3 // 5)), seed=length)
        real, padded = batch["input_mask"].astype(bool), ~batch["input_mask"].astype(bool)
        ours = keras.ops.convert_to_numpy(encoder(batch)["sequence_output"])
        eager, sdpa = (models[impl](batch) for impl in ("eager", "sdpa"))
        diffs = [np.abs(a - b)[real].max() for a, b in ((ours, eager), (ours, sdpa), (eager, sdpa))]
        print(f"{length:>6} " + " ".join(f"{d:12.2e}" for d in diffs) + f" {np.abs(eager - sdpa)[padded].max():24.2e}")
    print(f"\n{LONG} tokens, batch 1, each forward in a fresh process (peak = VmHWM; added = during the forward)")
    results = {kind: run_measure(kind, folder, tmp) for kind in ("keras", "eager", "sdpa")}
    for kind, (stats, out) in results.items():
        diff = "" if kind == "keras" else f"  max |keras - {kind}| {np.abs(results['keras'][1] - out).max():.2e}"
        print(f"  {kind:>6}: {stats['seconds']:6.2f} s, peak {stats['peak_mib']} MiB, "
              f"added {stats['added_peak_mib']} MiB{diff}")
    print(f"  eager vs sdpa: {np.abs(results['eager'][1] - results['sdpa'][1]).max():.2e}")
    print(f"\none local attention layer, {HEADS} heads x 64, window +-64, {LONG} tokens (fresh processes)")
    band, dense = (run_measure(kind, folder, tmp) for kind in ("band", "dense"))
    for name, (stats, _) in (("banded", band), ("dense mask", dense)):
        print(f"  {name:>10}: {stats['seconds']:6.2f} s, added peak {stats['added_peak_mib']} MiB")
    print(f"  max |banded - dense| {np.abs(band[1] - dense[1]).max():.2e}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        measure(*sys.argv[2:5])
    else:
        main()
