"""Learns a BERT WordPiece vocab.txt (or a RoBERTa byte-level BPE) from text files.

Example:
    python tools/build_vocab.py corpus/*.txt --vocab_size 30522 --output vocab.txt
    python tools/build_vocab.py corpus/*.txt --kind byte_bpe --vocab_size 50265 --output my_bpe/
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser, positive_int, resolve_file_flag, run_tool  # noqa: E402


def main(argv=None):
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+",
                        help="UTF-8 text files or glob patterns, one sentence or paragraph per line.")
    parser.add_argument("--vocab_size", type=positive_int, default=30522,
                        help="maximum vocabulary size (default 30522).")
    case = parser.add_mutually_exclusive_group()
    case.add_argument("--lower_case", dest="lower_case", action="store_true", default=True,
                      help="learn an uncased vocabulary (default).")
    case.add_argument("--no_lower_case", dest="lower_case", action="store_false",
                      help="learn a cased vocabulary.")
    parser.add_argument("--output", required=True, help="path of the vocab.txt to write (byte_bpe: the folder "
                        "for vocab.json + merges.txt).")
    parser.add_argument("--kind", choices=("wordpiece", "byte_bpe"), default="wordpiece",
                        help="wordpiece (BERT, default) or byte_bpe (RoBERTa's, learnt with Hugging Face tokenizers).")
    parser.add_argument("--max_lines", type=positive_int, default=None,
                        help="read at most this many non-empty lines.")
    parser.add_argument("--min_count", type=positive_int, default=None,
                        help="lowest piece count the learner searches from (tensorflow-text's "
                             "lower_thresh, default 10); lower it for small corpora.")
    args = parser.parse_args(argv)
    files = resolve_file_flag(args.files, "files")  # quoted globs too
    if args.kind == "byte_bpe":
        if os.path.isfile(args.output):
            parser.error(f"--output {args.output!r} is a file; --kind byte_bpe writes a folder (vocab.json + merges.txt)")
        from keras_bert.text import learn_byte_bpe

        config = learn_byte_bpe(files, args.vocab_size, args.output, max_lines=args.max_lines)
        print(f"Wrote {config.tokenizer().vocab_size} tokens to {config.vocab_file} and {config.merges_file}")
        return 0
    if os.path.isdir(args.output):
        parser.error(f"--output {args.output!r} is a folder; pass the path of the vocab file to write, "
                     f"e.g. {os.path.join(args.output, 'vocab.txt')}")
    from keras_bert import build_vocab  # after parsing: --help stays fast (no TensorFlow)

    learn_params = {"lower_thresh": args.min_count} if args.min_count else None
    vocab = build_vocab(files, args.vocab_size, lower_case=args.lower_case,
                        output=args.output, max_lines=args.max_lines, learn_params=learn_params)
    print(f"Wrote {len(vocab)} tokens to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(run_tool(main))
