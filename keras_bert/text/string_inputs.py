"""Text going into the in-graph tokenizer and packer: a rank 0 or 1 `tf.string` tensor, or one line
naming the argument; and the ids coming back to `detokenize`."""

import functools

import tensorflow as tf


def as_strings(texts, name):
    """`texts` (a str, a list of str or a `tf.string` tensor) as a rank 0 or 1 `tf.string` tensor,
    or a one-line `ValueError` naming `name` (e.g. "text_a", "Tokenizer").

    Example:
        >>> as_strings(["a b", "c"], "text_a").shape
        TensorShape([2])
    """
    if texts is None:
        raise ValueError(f"{name} got None instead of text; pass a string, a list of strings or a tf.string "
                         "tensor of rank 0 or 1.")
    if isinstance(texts, tf.RaggedTensor):
        raise ValueError(f"{name} must be a dense tf.string tensor of rank 0 or 1, got a RaggedTensor.")
    texts = tf.convert_to_tensor(texts, dtype_hint=tf.string)
    if texts.dtype != tf.string:
        raise ValueError(f"{name} must hold strings (tf.string), got dtype {texts.dtype.name}.")
    if texts.shape.rank not in (0, 1):
        raise ValueError(f"{name} must be a string or a [batch] vector of strings, got shape {texts.shape}; "
                         "pass a scalar string or a [batch] vector (reshape to [-1] first).")
    return texts


def strings_or_string(method):
    """Checks a tokenize method's text (`as_strings`) and lets it, written for `[batch]` strings,
    take a scalar too (the outputs then drop the batch dimension); further arguments pass through."""
    @functools.wraps(method)
    def call(self, texts, *args, **options):
        texts = as_strings(texts, type(self).__name__)
        if texts.shape.rank == 0:
            outputs = method(self, texts[tf.newaxis], *args, **options)
            return tuple(t[0] for t in outputs) if isinstance(outputs, tuple) else outputs[0]
        return method(self, texts, *args, **options)
    return call


def id_rows_or_row(method):
    """Lets a detokenize method, written for int32 ragged `[batch, (ids)]`, take ids dense or ragged,
    of rank 2 or 1 (the output then drops the batch dimension); any other rank is one ValueError."""
    @functools.wraps(method)
    def call(self, ids):
        if not isinstance(ids, tf.RaggedTensor):
            ids = tf.convert_to_tensor(ids)
        ids = tf.cast(ids, tf.int32)
        if ids.shape.rank == 1:
            return call(self, ids[tf.newaxis])[0]
        if ids.shape.rank != 2:
            raise ValueError(f"detokenize expects ids of rank 1 or 2, got shape {ids.shape}.")
        return method(self, ids if isinstance(ids, tf.RaggedTensor) else tf.RaggedTensor.from_tensor(ids))
    return call
