"""Speed benchmarks, each against peers in the same run: `python tools/benchmark.py {pipeline,train,infer,pack,onnx_fusion,finetune,embed,serve,family,accelerator} [args]`.

    python tools/benchmark.py pipeline   # raw text -> masked NSP batches (tools/bench_pipeline.py)
    python tools/benchmark.py train      # one pretraining step (tools/bench_train.py)
    python tools/benchmark.py infer      # inference / serving (tools/bench_infer.py)
    python tools/benchmark.py pack       # packed vs padded pretraining rows (tools/bench_pack.py)
    python tools/benchmark.py onnx_fusion  # ONNX rewrites vs ORT's bert/bert_tf/bert_keras (tools/bench_onnx_fusion.py)
    python tools/benchmark.py finetune   # tools/finetune.py vs a Hugging Face loop, end to end (tools/bench_finetune.py)
    python tools/benchmark.py embed      # raw text -> sentence embeddings: our SavedModel/TFLite vs SentenceTransformer.encode (tools/bench_embed.py)
    python tools/benchmark.py serve      # raw text -> task answer: our exports vs transformers pipelines (tools/bench_serve.py)
    python tools/benchmark.py accelerator  # BERT-base bf16 pretraining step on a GPU under JAX vs keras-hub, MFU (tools/bench_accelerator.py)
    python tools/benchmark.py family     # ModernBERT: our encoder vs transformers' sdpa, mixed lengths and 8,192 tokens (tools/bench_family.py)

Arguments after the name go to that benchmark (`--help` on each). With `--record`, the run's output
also rewrites that benchmark's table in docs/BENCHMARKS.md (`--record_file FILE`: another file), with
the date, the machine and the load:

    python tools/benchmark.py pack --record
"""

import importlib.util
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import UsageError, run_tool  # noqa: E402

BENCHMARKS = {"pipeline": "bench_pipeline.py", "train": "bench_train.py", "infer": "bench_infer.py",
              "pack": "bench_pack.py", "onnx_fusion": "bench_onnx_fusion.py",
              "finetune": "bench_finetune.py", "embed": "bench_embed.py", "serve": "bench_serve.py", "family": "bench_family.py",
              "accelerator": "bench_accelerator.py"}


def tool_module(file):
    """Imports a script of tools/ by its path (tools/ is a folder of scripts, not a package)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file)
    if not os.path.exists(path):
        raise SystemExit(f"{path} does not exist (yet).")
    spec = importlib.util.spec_from_file_location(file.removesuffix(".py"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args(argv):
    """The named benchmark's own `parse_args` on the rest: its flags checked, nothing run."""
    if not argv or argv[0] not in BENCHMARKS:
        raise UsageError(f"name a benchmark first: one of {', '.join(BENCHMARKS)} (see --help)")
    return tool_module(BENCHMARKS[argv[0]]).parse_args(tool_module("_benchmark_record.py").split_flags(argv[1:])[0])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return None
    if argv[0] not in BENCHMARKS:
        raise UsageError(f"unknown benchmark {argv[0]!r}; choose one of {', '.join(BENCHMARKS)} (see --help)")
    record = tool_module("_benchmark_record.py")
    rest, record_file = record.split_flags(argv[1:])
    benchmark = tool_module(BENCHMARKS[argv[0]])
    if record_file is None:
        return benchmark.main(rest)
    benchmark.parse_args(rest)  # a flag error before the run, not after it
    # A mode of a benchmark may keep its own section (pipeline --shards: pipeline_shards).
    section = getattr(benchmark, "record_section", lambda _: None)(rest)
    return record.run_and_record(argv[0], rest, record_file, benchmark.main, section)


if __name__ == "__main__":
    sys.exit(run_tool(main))
