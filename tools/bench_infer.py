"""Inference benchmark: Keras (XLA off/on), SavedModel, ONNX Runtime (plain / optimized), TFLite
(float32 / int8), and the peer: Hugging Face BertModel exported with torch.onnx.export and optimized
the same way. Same process, same inputs, batch 1 and 8, seq 128, BERT-base and a small BERT.

Weights are random (biases too: a freshly initialized model's zero biases are folded away by
TensorFlow's graph optimizer, which hides the Attention pattern a trained model has). Latency is
the median of repeated runs after warm-up, all runtimes timed round robin; the CPU may be shared,
so compare ratios from one run rather than absolute numbers across runs.

Targets printed at the end:
    our optimized ONNX latency <= 1.05 x the peer's optimized ONNX latency
    TFLite int8 >= 1.5 x faster than TFLite float32, and <= 30 % of its size

Examples:
    python tools/bench_infer.py                      # base + small, batch 1 and 8, seq 128
    python tools/bench_infer.py --models small --batches 1 --min_seconds 1
"""

import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

import numpy as np  # noqa: E402

import keras_bert  # noqa: E402  (lazy: keras_bert.export loads TensorFlow when first used)
from _bench_common import ort_session  # noqa: E402  (tools/ is the script's folder)
from keras_bert.cli import ArgumentParser, run_tool  # noqa: E402

MODELS = {
    "base": dict(hidden_size=768, num_layers=12, num_heads=12, intermediate_size=3072),
    "small": dict(hidden_size=384, num_layers=6, num_heads=12, intermediate_size=1536),  # MiniLM-L6 shape
}


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--models", default="base,small", help="comma-separated subset of base,small")
    parser.add_argument("--batches", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--min_runs", type=int, default=5)
    parser.add_argument("--min_seconds", type=float, default=3.0, help="time each runtime at least this long")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for ORT and TFLite")
    parser.add_argument("--work_dir", help="where the exported files go (default: a temp dir)")
    args = parser.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m]
    args.batches = [int(b) for b in args.batches.split(",") if b]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {unknown}; choose from {sorted(MODELS)}")
    return args


def interleaved_medians(functions, min_runs, min_seconds):
    """Median latency (ms) per function, timed round robin so that load changes on a shared CPU
    hit every runtime alike (timing each runtime in turn made ratios swing 2-3x here)."""
    for function in functions.values():
        function()  # warm-up: compilation, allocation
        function()
    times = {label: [] for label in functions}
    started = time.perf_counter()
    while (min(len(t) for t in times.values()) < min_runs
           or time.perf_counter() - started < min_seconds * len(functions)):
        for label, function in functions.items():
            t = time.perf_counter()
            function()
            times[label].append(time.perf_counter() - t)
        if min(len(t) for t in times.values()) >= 200:
            break
    return {label: 1000 * statistics.median(t) for label, t in times.items()}


def random_weights(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([(0.02 * rng.standard_normal(w.shape) + (1.0 if w.ndim == 1 and np.all(w == 1) else 0))
                       .astype(w.dtype) for w in model.get_weights()])
    return model


def inputs_for(batch, seq, vocab, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(1000, vocab, (batch, seq)).astype(np.int32)
    return {"input_word_ids": ids, "input_mask": np.ones_like(ids), "input_type_ids": np.zeros_like(ids)}


def peer_onnx(config, work_dir):
    """Hugging Face BertModel -> torch.onnx.export -> ORT BERT optimizer (the peer)."""
    import torch
    import transformers
    from onnxruntime.transformers.optimizer import optimize_model

    # Eager attention: the MatMul/Softmax graph ORT's BERT fusion matches (its SDPA export does not
    # fuse into Attention with this ORT version, which would make the peer slower than it can be).
    hf_config = transformers.BertConfig(**config.to_huggingface_dict(), attn_implementation="eager")
    bert = transformers.BertModel(hf_config).eval()

    class Peer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state, out.pooler_output

    sample = tuple(torch.ones(2, 16, dtype=torch.int64) for _ in range(3))
    path = os.path.join(work_dir, "peer.onnx")
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(Peer().eval(), sample, path, dynamo=False, opset_version=17,
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state", "pooler_output"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes})
    optimized = optimize_model(path, model_type="bert", num_heads=config.num_heads, hidden_size=config.hidden_size)
    optimized_path = os.path.join(work_dir, "peer_optimized.onnx")
    optimized.save_model_to_file(optimized_path)
    return path, optimized_path, keras_bert.export.fused_op_counts(optimized.model)


def tflite_runner(path, threads, feeds):
    from ai_edge_litert.interpreter import Interpreter

    runner = Interpreter(model_path=path, num_threads=threads).get_signature_runner()
    return lambda: runner(**feeds)


def bench_model(name, args, work_dir):
    import tensorflow as tf

    config = keras_bert.BertConfig(**MODELS[name])
    encoder = random_weights(keras_bert.build_encoder(config))
    out = os.path.join(work_dir, name)
    print(f"[{name}] exporting ...", flush=True)
    saved = keras_bert.export.export_saved_model(encoder, os.path.join(out, "savedmodel", "1"), verify_export=False)
    tfl = keras_bert.export.export_tflite(encoder, os.path.join(out, "tflite"), quantizations=("float32", "int8"),
                        verify_export=False)
    onx = keras_bert.export.export_onnx(encoder, os.path.join(out, "onnx"), verify_export=False)
    peer_plain, peer_opt, peer_fused = peer_onnx(config, out)
    print(f"[{name}] fused ops: ours {onx.extra['fused_ops']}, peer {peer_fused}", flush=True)
    loaded = tf.saved_model.load(saved.path).signatures["serve_ids"]
    call = lambda x: encoder(x, training=False)  # noqa: E731
    keras_graph, keras_xla = tf.function(call), tf.function(call, jit_compile=True)
    sessions = {label: ort_session(path, args.threads) for label, path in (
        ("onnx", onx.extra["files"]["onnx"]), ("onnx_optimized", onx.extra["files"]["onnx_optimized"]),
        ("peer_onnx", peer_plain), ("peer_onnx_optimized", peer_opt))}
    cases = {}  # (model, batch) -> {runtime: median ms}
    for batch in args.batches:
        feeds = inputs_for(batch, args.seq_length, config.vocab_size)
        tensors = {k: tf.constant(v) for k, v in feeds.items()}
        peer_feeds = {"input_ids": feeds["input_word_ids"].astype(np.int64),
                      "attention_mask": feeds["input_mask"].astype(np.int64),
                      "token_type_ids": feeds["input_type_ids"].astype(np.int64)}
        runtimes = {
            "keras": lambda: keras_graph(tensors)["sequence_output"].numpy(),
            "keras_xla": lambda: keras_xla(tensors)["sequence_output"].numpy(),
            "savedmodel": lambda: loaded(**tensors)["sequence_output"].numpy(),
            "tflite_float32": tflite_runner(tfl.extra["files"]["float32"], args.threads, feeds),
            "tflite_int8": tflite_runner(tfl.extra["files"]["int8"], args.threads, feeds),
        }
        for label, session in sessions.items():
            runtimes[label] = (lambda s=session, f=(peer_feeds if label.startswith("peer") else feeds):
                               s.run(None, f))
        cases[(name, batch)] = interleaved_medians(runtimes, args.min_runs, args.min_seconds)
        for label, ms in cases[(name, batch)].items():
            print(f"  {name:5s} batch {batch:2d} {label:20s} {ms:9.2f} ms", flush=True)
    return cases, tfl.extra["sizes"]


def report(cases, sizes, args):
    labels = list(dict.fromkeys(label for t in cases.values() for label in t))
    table = [["model", "batch"] + labels]
    table += [[name, str(batch)] + [f"{t.get(label, float('nan')):.2f}" for label in labels]
              for (name, batch), t in cases.items()]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = [f"seq_length {args.seq_length}, {args.threads} threads; median latency (ms)",
             *("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in table), "", "targets:"]
    for (name, batch), t in cases.items():
        ratio = t["onnx_optimized"] / t["peer_onnx_optimized"]
        speedup = t["tflite_float32"] / t["tflite_int8"]
        lines.append(f"  {name} batch {batch}: optimized ONNX ours/peer = {ratio:.2f}x "
                     f"({'ok' if ratio <= 1.05 else 'MISS'} <= 1.05); TFLite int8 speed-up = {speedup:.2f}x "
                     f"({'ok' if speedup >= 1.5 else 'MISS'} >= 1.5)")
    for name, size in sizes.items():
        fraction = size["int8"] / size["float32"]
        lines.append(f"  {name}: TFLite int8 size = {size['int8'] / 2**20:.1f} MiB = {100 * fraction:.0f} % of "
                     f"float32 {size['float32'] / 2**20:.1f} MiB ({'ok' if fraction <= 0.30 else 'MISS'} <= 30 %)")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    work_dir = args.work_dir or tempfile.mkdtemp(prefix="bench_infer_")
    cases, sizes = {}, {}
    for name in args.models:
        model_cases, sizes[name] = bench_model(name, args, work_dir)
        cases.update(model_cases)
    print("\n" + report(cases, sizes, args))
    return 0


if __name__ == "__main__":
    sys.exit(run_tool(main))
