"""Fine-tune a BERT checkpoint on classification, sentence pairs, token classification or SQuAD.

    python tools/finetune.py --checkpoint path/to/bert --task classification \\
        --train_file train.csv --eval_file dev.csv --text_a sentence --label label
    python tools/finetune.py --checkpoint bert/ --task pair_classification \\
        --train_file train.tsv --eval_file dev.tsv --text_a premise --text_b hypothesis
    python tools/finetune.py --checkpoint bert/ --task token_classification \\
        --train_file eng.train --eval_file eng.testa
    python tools/finetune.py --checkpoint bert/ --task squad --seq_length 384 \\
        --train_file train-v1.1.json --eval_file dev-v1.1.json

The checkpoint may be a Google TF1 checkpoint, a Hugging Face BERT folder or a keras_bert
checkpoint (e.g. runs/pretrain/final from tools/pretrain.py); its vocab.txt is used.
Writes --output_dir/model.keras and --output_dir/metrics.json, and prints the metrics
(accuracy / macro F1 and the majority baseline; word accuracy and entity-level
precision / recall / F1, CoNLL style; SQuAD EM / F1).

Resumable: the training state is checkpointed atomically to --output_dir/checkpoints
every --checkpoint_every_steps steps and at every epoch end. Run the same command again
after an interruption and it continues from the last checkpoint; on a finished run it
only evaluates again. An --output_dir holding another model's or task's checkpoints
is refused.
"""

import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.choices import JIT_MODES, PRECISIONS, STRATEGIES  # noqa: E402
from keras_bert.cli import (ArgumentParser, make_dir, non_negative_int,  # noqa: E402
                            positive_float, positive_int, progress_verbosity, run_tool)


def parse_args(argv):
    parser = ArgumentParser(description=__doc__.split("\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            epilog=__doc__.split("\n", 1)[1])
    parser.add_argument("--checkpoint", required=True, help="checkpoint folder or file")
    parser.add_argument("--task", required=True, choices=("classification", "pair_classification",
                                                          "token_classification", "squad"))
    parser.add_argument("--train_file", required=True)
    parser.add_argument("--eval_file")
    parser.add_argument("--text_a", default="sentence", help="column of the (first) text")
    parser.add_argument("--text_b", help="column of the second text (pair classification)")
    parser.add_argument("--label", default="label", help="column of the label")
    parser.add_argument("--labels", nargs="*", help="label vocabulary, in id order")
    parser.add_argument("--seq_length", type=positive_int, default=128)
    parser.add_argument("--batch_size", type=positive_int, default=32)
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--learning_rate", type=positive_float, default=3e-5)
    parser.add_argument("--doc_stride", type=positive_int, default=128)
    parser.add_argument("--max_query_length", type=positive_int, default=64)
    parser.add_argument("--output_dir", default="runs/finetune")
    parser.add_argument("--checkpoint_every_steps", type=non_negative_int, default=500,
                        help="checkpoint interval in steps, besides epoch ends (0: epoch ends only)")
    parser.add_argument("--keep_checkpoints", type=positive_int, default=2)
    parser.add_argument("--strategy", default="auto", choices=STRATEGIES)
    parser.add_argument("--mixed_precision", choices=sorted(PRECISIONS), default="off")
    parser.add_argument("--jit_compile", choices=JIT_MODES, default="auto")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gradient_accumulation_steps", type=positive_int, default=1, metavar="K",
                        help="run each batch as K micro-batches of batch_size/K in sequence, one "
                             "optimizer step (less memory, the same update)")
    parser.add_argument("--padding", choices=("dynamic", "full"), default="dynamic",
                        help="(pair) classification: pad each batch to its longest example and "
                             "group training batches by length (dynamic), or to --seq_length (full)")
    parser.add_argument("--eval_every_epoch", action="store_true",
                        help="also evaluate --eval_file after every epoch (default: once, at the end)")
    parser.add_argument("--quiet", action="store_true", help="no progress output (errors only)")
    args = parser.parse_args(argv)
    if args.text_b and args.task != "pair_classification":
        parser.error(f"--text_b is only read by --task pair_classification (got --task {args.task}); "
                     "pass --task pair_classification or drop --text_b")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from keras_bert.tasks import finetune_task
    from keras_bert.training import get_strategy

    make_dir(args.output_dir, "--output_dir")
    strategy = get_strategy(args.strategy)
    result = finetune_task(
        args.task, args.checkpoint, args.train_file, args.eval_file, text_a=args.text_a,
        text_b=args.text_b, label=args.label, labels=args.labels, seq_length=args.seq_length,
        batch_size=args.batch_size, epochs=args.epochs, learning_rate=args.learning_rate,
        doc_stride=args.doc_stride, max_query_length=args.max_query_length,
        output_dir=args.output_dir, checkpoint_every_steps=args.checkpoint_every_steps,
        keep_checkpoints=args.keep_checkpoints, strategy=strategy,
        mixed_precision=args.mixed_precision, jit_compile=args.jit_compile, seed=args.seed,
        gradient_accumulation_steps=args.gradient_accumulation_steps, padding=args.padding,
        eval_every_epoch=args.eval_every_epoch, verbose=progress_verbosity(args.quiet))
    path = os.path.join(args.output_dir, "metrics.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result["metrics"], f, indent=2)
    os.replace(path + ".tmp", path)
    print(f"Trained steps {result['start_step']} -> {result['step']}.")
    print(f"Model: {os.path.join(args.output_dir, 'model.keras')}")
    if result["metrics"]:
        print("Evaluation on", args.eval_file + ":",
              ", ".join(f"{k} {v:.4f}" for k, v in result["metrics"].items()))
    return result


if __name__ == "__main__":
    sys.exit(run_tool(main))
