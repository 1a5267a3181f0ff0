"""What a served model and its id inputs must be: one-line errors at export, graph asserts at serving time."""

import keras
import tensorflow as tf

ID_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")


def check_model(model):
    """Raises a clear error unless `model` is a built Keras model with BERT's id inputs."""
    if not isinstance(model, keras.Model):
        raise TypeError(
            f"Expected a keras.Model (e.g. from keras_bert.build_classifier), got {type(model).__name__}.")
    if not model.built or not model.variables:
        raise ValueError(
            f"Model {model.name!r} is not built (it has no weights yet), so there is nothing to "
            "export. Build it first: call it once on a batch, or use keras_bert's functional "
            "builders (build_encoder, build_classifier, ...), which are built on creation.")
    try:
        inputs = model.input
    except (AttributeError, ValueError):
        inputs = None
    missing = [n for n in ID_INPUTS if not isinstance(inputs, dict) or n not in inputs]
    if missing:
        raise ValueError(
            f"Model {model.name!r} lacks the input(s) {missing}; exported models take a dict of "
            f"int32 [batch, seq] {list(ID_INPUTS)} (the keras_bert / TF Hub convention).")


def checked_seq_length(config, tokenizer, seq_length):
    """`seq_length` as an int, or a one-line error when it or the tokenizer's vocab does not fit."""
    if tokenizer is not None and config.vocab_size is not None and tokenizer.vocab_size != config.vocab_size:
        raise ValueError(
            f"The tokenizer's vocabulary ({tokenizer.vocab_path}) has {tokenizer.vocab_size} "
            f"tokens but the model's word embeddings have {config.vocab_size} rows. Use the "
            "vocab.txt the model was trained with.")
    seq_length = int(seq_length)
    longest = config.max_sequence_length if config.max_position_embeddings is not None else None
    if longest is not None and seq_length > longest:
        raise ValueError(f"seq_length={seq_length} exceeds the {longest} positions the model takes "
                         f"(max_position_embeddings={config.max_position_embeddings}); use seq_length <= {longest}.")
    return seq_length


def checked_ids(inputs, max_length, vocab_size, type_vocab_size):
    """Graph asserts on the id inputs; each message names the input and what it must be."""
    ids = inputs["input_word_ids"]
    checks = [tf.debugging.assert_equal(
        tf.shape(inputs[name]), tf.shape(ids),
        message=f"{name} must have the shape of input_word_ids [batch, seq] "
                f"(the same batch size and sequence length)")
        for name in ("input_mask", "input_type_ids")]
    if max_length is not None:
        checks.append(tf.debugging.assert_less_equal(
            tf.shape(ids)[1], max_length,
            message=f"sequence longer than the model's max_position_embeddings={max_length}"))
    ranges = [("input_word_ids", vocab_size, f"[0, vocab_size={vocab_size})"),
              ("input_type_ids", type_vocab_size, f"[0, type_vocab_size={type_vocab_size})"),
              ("input_mask", 2, "{0, 1}")]
    for name, size, bounds in ranges:
        if not size:  # None: unchecked; 0 rows (no token type table): the model reads no such ids
            continue
        allowed = f"{name} values must be in {bounds}"
        checks.append(tf.debugging.assert_non_negative(inputs[name], message=allowed))
        checks.append(tf.debugging.assert_less(inputs[name], size, message=allowed))
    with tf.control_dependencies(checks):
        return {name: tf.identity(value) for name, value in inputs.items()}
