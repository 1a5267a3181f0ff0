"""tools/pretrain.py's flags read into the run's inputs: checked before TensorFlow loads, then built.

`check_pretraining_input` is plain Python (no TensorFlow at import or call): a run its input pipelines,
`SecondPhase` or `build_vocab_once` would refuse once TensorFlow has loaded is refused at once (a typo answered
in 0.2 s, not 7 s). Each check is theirs (`check_corpus`, `check_fraction`, `check_vocab_settings`), made
earlier, not a copy.
"""

from keras_bert.data.corpus_checks import check_corpus
from keras_bert.text.text_files import resolve_files
from keras_bert.text.vocab_cache import check_vocab_settings
from keras_bert.training.second_phase import check_fraction


def check_pretraining_input(files, eval_files, flags, kind="wordpiece"):
    """Refuses, in one line, input that `pretraining_inputs` (and the vocab learnt for it) would refuse later.

    Args:
        files, eval_files: the training and held-out text files (None: not read from text, e.g. --shards).
        flags: the run's settings by name (others are ignored): `input_format` (None: "auto"), `next_sentence`
            ("on"/"off"), `phase2_seq_length` and `phase2_fraction`, and for a vocab learnt into `output_dir`:
            `build_vocab` (its size, None: none learnt), `cased`.
        kind: the tokenizer kind a vocab is learnt as (`build_vocab_once`).

    Example:
        >>> check_pretraining_input(["corpus.txt"], None, {"next_sentence": "on"})  # doctest: +SKIP
    """
    for paths in (files, eval_files):
        if paths:
            check_corpus(resolve_files(paths), flags.get("input_format") or "auto", flags.get("next_sentence") == "on")
    if flags.get("phase2_seq_length"):
        check_fraction(flags["phase2_fraction"])
    if flags.get("build_vocab") and files:
        check_vocab_settings(flags["output_dir"], files, flags["build_vocab"], not flags.get("cased"),
                             "--output_dir", kind)


def pretraining_inputs(files, eval_files, tokenizer, flags):
    """`(train_input, eval_input or None, SecondPhase or None)` for `run_pretraining`, from tools/pretrain.py's
    flags (`flags`, by name): `--shards`' batches or `files`' pipeline, `eval_files`' and phase 2's on `files`."""
    from keras_bert.training import SecondPhase, pretraining_input, shards_input  # pylint: disable=import-outside-toplevel

    data_kwargs = dict(seq_length=flags["seq_length"], max_predictions_per_seq=flags["max_predictions_per_seq"],
                       whole_word_masking=flags["whole_word_masking"],
                       input_format=flags["input_format"] or "auto", seed=flags["seed"],
                       pack_sequences=flags["pack_sequences"], masked_lm_prob=flags["masked_lm_prob"],
                       next_sentence=flags["next_sentence"] == "on")
    train_input = shards_input(flags["shards"], **{k: data_kwargs[k] for k in (
        "max_predictions_per_seq", "masked_lm_prob", "whole_word_masking", "seed")}) if flags["shards"] \
        else pretraining_input(files, tokenizer, **data_kwargs)
    eval_input = pretraining_input(eval_files, tokenizer, **data_kwargs) if eval_files else None
    phase2 = None
    if flags["phase2_seq_length"]:  # same files, batch size and seed; longer sequences
        phase2 = SecondPhase(pretraining_input(files, tokenizer, **dict(
            data_kwargs, seq_length=flags["phase2_seq_length"],
            max_predictions_per_seq=flags["phase2_max_predictions_per_seq"])), flags["phase2_fraction"])
    return train_input, eval_input, phase2
