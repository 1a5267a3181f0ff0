"""A run where TensorFlow is not installed (a JAX machine): what it trains from, and what is refused in one line.

Keras on JAX trains from `tools/write_shards.py`'s shards (`ShardBatches`: NumPy); raw text needs
tensorflow-text to tokenize, Keras's TensorFlow backend needs TensorFlow. A TensorFlow process loads
and exports the run's `final/`.
"""

import importlib.util

from keras_bert.errors import UsageError


def has_tensorflow():
    """Whether `import tensorflow` can work here (nothing is imported)."""
    return importlib.util.find_spec("tensorflow") is not None


def check_without_tensorflow(shards=None, files=None, eval_files=None):
    """Refuses, in one line (`UsageError`), a run that needs TensorFlow where it is not installed: raw text to
    tokenize (`files`, `eval_files`, or the demo corpus when neither `shards` nor `files` is given) or Keras on
    the TensorFlow backend.

    Example:
        >>> check_without_tensorflow(shards="shards/")  # KERAS_BACKEND=jax: nothing to refuse
    """
    raw_text = "--eval_files" if eval_files else None if shards else "--files" if files else "the demo corpus"
    if raw_text:
        without = " without --eval_files" if raw_text == "--eval_files" else ""
        raise UsageError(f"{raw_text}: raw text is tokenized by tensorflow-text, which needs TensorFlow (not "
                         "installed): write shards where it is (python tools/write_shards.py --files ... --output_dir "
                         f"SHARDS) and pass --shards SHARDS{without}, or pip install tensorflow-cpu tensorflow-text.")
    try:
        import keras  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        raise UsageError("Keras's backend is TensorFlow, which is not installed: set KERAS_BACKEND=jax (it trains "
                         "from --shards without TensorFlow), or pip install tensorflow-cpu tensorflow-text.") from None


def vocab_ids(text_config):
    """`(vocab_size, pad_id)` of a WordPiece `TextConfig` (a kind whose vocab is a token list), read from its
    vocab.txt (its in-graph tokenizer needs TensorFlow); another kind's is refused in one line.

    Example:
        >>> vocab_ids(keras_bert.TextConfig.from_dir("shards/"))
        (30522, 0)
    """
    if not text_config.tokenizer_kind.token_lines:  # a token-per-line vocab (WordPiece) is read without TensorFlow
        raise UsageError(f"--shards: a {text_config.kind} text contract's tokenizer needs TensorFlow (not "
                         "installed); pip install tensorflow-cpu tensorflow-text, or write WordPiece shards.")
    from keras_bert.text.vocab import load_vocab, special_token_ids  # pylint: disable=import-outside-toplevel

    vocab = load_vocab(text_config.vocab_file)
    return len(vocab), special_token_ids(vocab, text_config.vocab_file)["[PAD]"]
