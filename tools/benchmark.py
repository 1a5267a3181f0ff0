"""Speed benchmarks, each against peers in the same run: `python tools/benchmark.py {pipeline,train,infer,pack,onnx_fusion,finetune,embed,serve} [args]`.

    python tools/benchmark.py pipeline   # raw text -> masked NSP batches (tools/bench_pipeline.py)
    python tools/benchmark.py train      # one pretraining step (tools/bench_train.py)
    python tools/benchmark.py infer      # inference / serving (tools/bench_infer.py)
    python tools/benchmark.py pack       # packed vs padded pretraining rows (tools/bench_pack.py)
    python tools/benchmark.py onnx_fusion  # ONNX rewrites vs ORT's bert/bert_tf/bert_keras (tools/bench_onnx_fusion.py)
    python tools/benchmark.py finetune   # tools/finetune.py vs a Hugging Face loop, end to end (tools/bench_finetune.py)
    python tools/benchmark.py embed      # raw text -> sentence embeddings: our SavedModel/TFLite vs SentenceTransformer.encode (tools/bench_embed.py)
    python tools/benchmark.py serve      # raw text -> task answer: our exports vs transformers pipelines (tools/bench_serve.py)

Arguments after the name go to that benchmark (`--help` on each).
"""

import importlib.util
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import UsageError, run_tool  # noqa: E402

BENCHMARKS = {"pipeline": "bench_pipeline.py", "train": "bench_train.py", "infer": "bench_infer.py",
              "pack": "bench_pack.py", "onnx_fusion": "bench_onnx_fusion.py",
              "finetune": "bench_finetune.py", "embed": "bench_embed.py", "serve": "bench_serve.py"}


def load(name):
    """Imports tools/bench_<name>.py (tools/ is a folder of scripts, not a package)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), BENCHMARKS[name])
    if not os.path.exists(path):
        raise SystemExit(f"{path} does not exist (yet).")
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args(argv):
    """The named benchmark's own `parse_args` on the rest: its flags checked, nothing run."""
    if not argv or argv[0] not in BENCHMARKS:
        raise UsageError(f"name a benchmark first: one of {', '.join(BENCHMARKS)} (see --help)")
    return load(argv[0]).parse_args(argv[1:])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return None
    if argv[0] not in BENCHMARKS:
        raise UsageError(f"unknown benchmark {argv[0]!r}; choose one of {', '.join(BENCHMARKS)} (see --help)")
    return load(argv[0]).main(argv[1:])


if __name__ == "__main__":
    sys.exit(run_tool(main))
