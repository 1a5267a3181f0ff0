"""Fine-tune a BERT checkpoint on classification, sentence pairs, token classification or SQuAD.

    python tools/finetune.py classification --checkpoint path/to/bert \\
        --train_file train.csv --eval_file dev.csv --text_a sentence --label label
    python tools/finetune.py pair_classification --checkpoint bert/ \\
        --train_file train.tsv --eval_file dev.tsv --text_a premise --text_b hypothesis
    python tools/finetune.py token_classification --checkpoint bert/ \\
        --train_file eng.train --eval_file eng.testa
    python tools/finetune.py squad --checkpoint bert/ --seq_length 384 \\
        --train_file train-v1.1.json --eval_file dev-v1.1.json

Each task has its own flags (`python tools/finetune.py squad --help`); a flag of another task is
refused. `--task NAME` is still read as `NAME`.

The checkpoint may be a Google TF1 checkpoint, a Hugging Face BERT folder or a keras_bert
checkpoint (e.g. runs/pretrain/final from tools/pretrain.py), or a released one by name
(hf://ORG/NAME[@REVISION], modernbert_base: fetched into the Hub cache); its text contract is used.
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
import dataclasses
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.checkpoints.checkpoint_formats import check_local_checkpoint  # noqa: E402
from keras_bert.cli import (ArgumentParser, add_run_flags, make_dir, non_negative_int,  # noqa: E402
                            positive_float, positive_int, progress_verbosity, run_tool)


def parse_args(argv):
    from keras_bert.tasks import TASKS  # imports no Keras / TensorFlow

    parser = ArgumentParser(doc=__doc__)
    tasks = parser.add_subparsers(dest="task", required=True, metavar="TASK",
                                  title=f"tasks (`{parser.prog} TASK --help` lists a task's flags)")
    for name, task in TASKS.items():
        sub = tasks.add_parser(name, help=(task.__doc__ or "").split("\n")[0],
                               description=(task.__doc__ or "").split("\n")[0])
        _run_flags(sub, task)
        group = sub.add_argument_group(f"{name} options")
        for option, (kind, default, help_text) in task.options().items():
            group.add_argument(f"--{option}", default=argparse.SUPPRESS,  # unset: the task's default
                               help=help_text + ("" if default is None else f" (default: {default})"),
                               **_flag_type(kind))
    args, extra = parser.parse_known_args(_task_first(argv, TASKS, parser))
    if extra:
        flag = next((e.split("=")[0] for e in extra if e.startswith("--")), extra[0])
        owners = [n for n, t in TASKS.items() if flag.lstrip("-") in t.options()]
        parser.error(f"{flag} does not apply to task {args.task}" + (
            f" (it is an option of {', '.join(owners)}); drop it" if owners else ""))
    parser.check_paths(args, "train_file", "eval_file")
    args.options = {k: v for k, v in vars(args).items() if k in TASKS[args.task].options()}
    return args


def _task_first(argv, tasks, parser):
    """`--task NAME ...` (the older spelling) as `NAME ...`; an unknown or a second, different NAME is refused."""
    rest, named = [], []
    argv = list(argv)
    while argv:
        arg = argv.pop(0)
        if arg == "--task" and argv:
            named.append(argv.pop(0))
        elif arg.startswith("--task="):
            named.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
    if not named:
        return rest
    if rest and rest[0] in tasks:  # the task named both ways
        named.append(rest.pop(0))
    if len(set(named)) > 1:
        parser.error(f"one task per run: got {', '.join(dict.fromkeys(named))}")
    if named[0] not in tasks:
        parser.error(f"--task {named[0]}: unknown task; choose from {', '.join(tasks)}")
    return named[:1] + rest


def _flag_type(kind):
    """argparse keywords for an option annotated `kind` (str, int, bool, list or a tuple of choices)."""
    if isinstance(kind, tuple):
        return {"choices": kind}
    if kind is list:
        return {"nargs": "*", "metavar": "NAME"}
    if kind is bool:
        return {"choices": ("on", "off"), "type": str}
    if kind is int:
        return {"type": positive_int}
    if kind is float:
        return {"type": positive_float}
    return {}


def _run_flags(parser, task):
    """The flags every task shares: data, sizes (defaults: the task's `Options`) and the run (`RunConfig`)."""
    defaults = {field.name: field.default for field in dataclasses.fields(task.Options)}
    parser.add_argument("--checkpoint", required=True, help="checkpoint folder or file, or a released checkpoint: "
                        "hf://ORG/NAME[@REVISION] or a name such as bert_base_uncased, modernbert_base")
    parser.add_argument("--train_file", required=True)
    parser.add_argument("--eval_file")
    parser.add_argument("--seq_length", type=positive_int, default=defaults["seq_length"])
    parser.add_argument("--batch_size", type=positive_int, default=defaults["batch_size"])
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--learning_rate", type=positive_float, default=3e-5)
    parser.add_argument("--eval_every_epoch", action="store_true",
                        help="also evaluate --eval_file after every epoch (default: once, at the end)")
    parser.add_argument("--output_dir", default="runs/finetune")
    parser.add_argument("--checkpoint_every_steps", type=non_negative_int, default=500,
                        help="checkpoint interval in steps, besides epoch ends (0: epoch ends only)")
    parser.add_argument("--keep_checkpoints", type=positive_int, default=2)
    add_run_flags(parser, "run each batch as K micro-batches of batch_size/K in sequence, one optimizer step "
                  "(less memory, the same update)")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    check_local_checkpoint(args.checkpoint, "--checkpoint")  # before TensorFlow loads, and before any folder
    make_dir(args.output_dir, "--output_dir")  # before TensorFlow loads: a bad folder is refused at once
    from keras_bert.tasks import finetune_task
    from keras_bert.training import RunConfig

    run = RunConfig(output_dir=args.output_dir, strategy=args.strategy,  # (made in finetune_task, after its checks)
                    mixed_precision=args.mixed_precision, jit_compile=args.jit_compile, seed=args.seed,
                    gradient_accumulation_steps=args.gradient_accumulation_steps,
                    checkpoint_every_steps=args.checkpoint_every_steps,
                    keep_checkpoints=args.keep_checkpoints, on_nonfinite=args.on_nonfinite,
                    verbose=progress_verbosity(args.quiet))
    result = finetune_task(args.task, args.checkpoint, args.train_file, args.eval_file,
                           seq_length=args.seq_length, batch_size=args.batch_size, epochs=args.epochs,
                           learning_rate=args.learning_rate, eval_every_epoch=args.eval_every_epoch,
                           run=run, **args.options)  # on / off: read as bools by the task's options
    print(f"Trained steps {result['start_step']} -> {result['step']}.")
    print(f"Model: {os.path.join(args.output_dir, 'model.keras')}")
    if result["metrics"]:
        print("Evaluation on", args.eval_file + ":",
              ", ".join(f"{k} {v:.4f}" for k, v in result["metrics"].items()))
    for name, note in result["notes"].items():  # null in metrics.json
        print(f"Note: {name} is {note} (null in metrics.json).")
    return result


if __name__ == "__main__":
    sys.exit(run_tool(main))
