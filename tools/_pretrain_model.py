"""tools/pretrain.py's model and objective: the config it builds (a --family's own from --preset's sizes) and
the masking (--family's rate unless given, with enough masked positions for it). Imports nothing heavy at
module level: --help and flag errors load no Keras/TensorFlow."""

import dataclasses
import math

# The default model: 2 layers, hidden 128 (Google's BERT-Tiny shape). The demo from scratch
# trains it at sequence length 32 (its sentences are short; on 2 busy cores a step of 32 such
# sequences took 0.2-0.4 s, one of 64 x 64 0.8-0.9 s, for the same held-out accuracy per
# token: 0.12 after 600 vs 400) with a vocab learned from the corpus.
DEFAULT_CONFIG = dict(hidden_size=128, num_layers=2, num_heads=2, intermediate_size=512,
                      max_position_embeddings=128, hidden_act="gelu")
DEMO_DROPOUT = dict(dropout_rate=0.0, attention_dropout_rate=0.0)
DEFAULT_PREDICTIONS = 10  # masked positions per sequence without --family or --max_predictions_per_seq


def masking(args, family):
    """--family's objective and masking rate where not given, positions enough for that rate (at least 10:
    ModernBERT's 30 % of 64 tokens needs 20); phase 2's positions in the same share."""
    if family is not None:
        args.next_sentence = args.next_sentence or family.next_sentence
        args.masked_lm_prob = args.masked_lm_prob or family.mask_rate
    needed = math.ceil(args.seq_length * args.masked_lm_prob) if family is not None else 0
    args.max_predictions_per_seq = args.max_predictions_per_seq or max(DEFAULT_PREDICTIONS, needed)
    if args.phase2_seq_length:
        args.phase2_fraction = args.phase2_fraction or 0.1
        args.phase2_max_predictions_per_seq = args.phase2_max_predictions_per_seq or max(
            1, round(args.phase2_seq_length * args.max_predictions_per_seq / args.seq_length))


def model_config(args, tokenizer, family):
    """The config to build (None: the --init_checkpoint's), checked against both phases: --config's, --preset's
    or the default shape, as --family's model (its own config class for ModernBERT)."""
    import keras_bert
    from keras_bert.training import check_batch_memory, check_position_embeddings

    if args.init_checkpoint:
        return None  # the checkpoint carries its config
    if args.config:
        config = keras_bert.BertConfig.from_json(args.config)
    elif args.preset:
        config = keras_bert.BertConfig.from_preset(args.preset)
    else:
        config = keras_bert.BertConfig(vocab_size=tokenizer.vocab_size, **DEFAULT_CONFIG,
                                       **(DEMO_DROPOUT if args.from_scratch_demo else {}))
    if args.build_vocab:  # the model's vocab follows the built one
        config = dataclasses.replace(config, vocab_size=tokenizer.vocab_size)
    config = family.config(config, tokenizer.pad_id) if family else config  # RoBERTa: positions after pad + 1
    phases = [(args.seq_length, args.max_predictions_per_seq)]
    if args.phase2_seq_length:
        phases.append((args.phase2_seq_length, args.phase2_max_predictions_per_seq))
    check_position_embeddings([seq_length for seq_length, _ in phases], config.max_position_embeddings)
    for seq_length, predictions in phases:
        check_batch_memory(config, args.batch_size, seq_length, predictions, args.mixed_precision)
    return config


def shard_flags(args, parser):
    """--shards: the folder's length, pairing and packing; the flags that would contradict it refused."""
    if not args.shards:
        return
    from keras_bert.data.shard_reader import read_index

    clash = [f"--{flag}" for flag in ("files", "vocab", "build_vocab", "cased", "phase2_seq_length", "input_format")
             if getattr(args, flag)]
    if clash:
        parser.error(f"--shards {args.shards} holds the tokenized corpus and its text contract: drop "
                     f"{', '.join(clash)} (tools/write_shards.py takes them)")
    try:
        index = read_index(args.shards)
    except ValueError as error:
        parser.error(f"--shards: {error}")
    for flag, value in (("seq_length", index["seq_length"]), ("pack_sequences", index["pack_sequences"]),
                        ("next_sentence", "on" if index["next_sentence"] else "off")):
        if getattr(args, flag) not in (None, False, value):
            parser.error(f"--{flag} {getattr(args, flag)} contradicts --shards {args.shards} (written with "
                         f"{value}); drop it or write the shards again")
        setattr(args, flag, value)
