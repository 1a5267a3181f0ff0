"""A BERT-base bfloat16 pretraining step on a GPU under JAX: keras_bert vs keras-hub, model FLOPs utilisation.

    python tools/benchmark.py accelerator        # or: python tools/bench_accelerator.py
    python tools/bench_accelerator.py --seq_length 128 --batch_size 256 --predictions 20

The step is tools/bench_train.py's (forward, MLM + NSP loss, backward, AdamW update, `jit_compile`), at
BERT-base's shape (12 layers, hidden 768, 12 heads, intermediate 3,072, vocab 30,522) in Keras
`mixed_bfloat16`, with Keras on JAX: TensorFlow is not needed. Peers in the same run: keras-hub's
`BertBackbone` + `MaskedLMHead` + an NSP dense layer, and Hugging Face `BertForPreTraining` on PyTorch
(CUDA, `torch.autocast` bfloat16) when PyTorch sees a GPU. MFU is the model's training FLOPs per second
(bench_train's count, for every contestant) over a bfloat16 matmul peak measured in the same run (JAX,
8,192^3), and over the datasheet's dense peak when one is given (`--datasheet_tflops`, 989 for an H100/H200).
"""

import os
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras

import bench_train  # noqa: E402  (tools/ is this script's folder)
from _bench_probes import best_seconds_per_call  # noqa: E402
from keras_bert.cli import ArgumentParser, run_tool  # noqa: E402

CONTESTANTS = ("ours", "keras_hub", "hf_torch")


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    bench_train.add_step_flags(parser, layers=12, hidden=768, heads=12, seq_length=512, predictions=76, steps=10,
                               rounds=3)
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="bf16")
    parser.add_argument("--datasheet_tflops", type=float, default=989.0,
                        help="the accelerator's dense peak for --precision in TFLOP/s (989: H100/H200 bf16; 0: none)")
    parser.add_argument("--matmul_size", type=int, default=8192, help="the peak probe's square matmul size")
    parser.add_argument("--only", help="comma-separated subset of " + ",".join(CONTESTANTS))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only.split(",")) - set(CONTESTANTS)) if args.only else []
    if unknown:
        parser.error(f"--only: unknown contestants {unknown}; choose from {', '.join(CONTESTANTS)}")
    return args


def matmul_peak_flops(size, precision, repeats=10):
    """FLOP/s of a `size`^3 matmul in JAX (bfloat16 or float32), best of three timings of `repeats`."""
    import jax
    import jax.numpy as jnp

    dtype = jnp.bfloat16 if precision == "bf16" else jnp.float32
    a, b = (jax.random.normal(jax.random.PRNGKey(i), (size, size), dtype) for i in (0, 1))
    matmul = jax.jit(jnp.matmul)
    return 2 * size ** 3 / best_seconds_per_call(lambda: matmul(a, b), lambda result: result.block_until_ready(),
                                                 repeats)


def runners(args, batch):
    import torch

    gpu = torch.cuda.is_available()
    return {"ours": lambda: bench_train.bench_ours(args, batch, True),
            "keras_hub": lambda: bench_train.bench_keras_hub(args, batch, True),
            "hf_torch": lambda: bench_train.bench_hf_torch(args, batch, "cuda" if gpu else "cpu")}


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import jax
    import keras

    chosen = args.only.split(",") if args.only else list(CONTESTANTS)
    print(f"Training step on {jax.devices()[0].device_kind} (Keras {keras.__version__} on "
          f"{keras.backend.backend()}, JAX {jax.__version__}): {args.layers} layers, hidden {args.hidden}, "
          f"{args.heads} heads, seq {args.seq_length}, batch {args.batch_size}, {args.predictions} predictions, "
          f"{args.precision}; {args.rounds} rounds of {args.steps} steps after {args.warmup} warm-up steps.", flush=True)
    batch, flops = bench_train.synthetic_batch(args), bench_train.model_flops_per_sequence(args)
    build = runners(args, batch)
    steps = {}
    for name in chosen:
        start = time.perf_counter()
        steps[name] = build[name]()
        print(f"  {name:10s} built, compiled and warmed up in {time.perf_counter() - start:.0f} s", flush=True)
    rounds = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            rounds[name].append(bench_train._throughput(step, args.steps, args.batch_size)[0])
    peak = matmul_peak_flops(args.matmul_size, args.precision)
    datasheet = args.datasheet_tflops * 1e12
    print(f"Matmul peak ({args.precision}, JAX, {args.matmul_size}^3): {peak / 1e12:.0f} TFLOP/s measured"
          + (f", {args.datasheet_tflops:.0f} datasheet" if datasheet else "")
          + f"; model: {flops / 1e9:.1f} GFLOP per training sequence.")
    results = {name: max(values) for name, values in rounds.items()}
    for name, seq_per_s in results.items():
        print(f"  {name:10s} {seq_per_s:8.1f} seq/s   MFU {100 * seq_per_s * flops / peak:5.1f} % of measured"
              + (f", {100 * seq_per_s * flops / datasheet:5.1f} % of datasheet" if datasheet else ""), flush=True)
    ratios = {f"ours / {peer}": results["ours"] / results[peer]
              for peer in ("keras_hub", "hf_torch") if "ours" in results and peer in results}
    for label, ratio in ratios.items():
        print(f"  {label}: {ratio:.2f}x")
    return {"seq_per_s": results, "ratios": ratios, "peak_flops": peak, "flops_per_sequence": flops}


if __name__ == "__main__":
    sys.exit(run_tool(main))
