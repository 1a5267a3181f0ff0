"""Long texts as overlapping windows (`doc_stride`), and window outputs aggregated per document.

One implementation, in TF ops, used by the readers (`text_dataset(doc_stride=...)`), by the
tasks' evaluation and by the SavedModel text signatures, so training, evaluation and serving
window a text the same way. The windows follow run_squad.py's doc spans: the first starts at
piece 0, each next one `doc_stride` pieces later, until one reaches the text's end; a text that
fits is one window (then nothing changes: it is packed as without `doc_stride`).
"""

import tensorflow as tf

from keras_bert.text.no_autograph import no_autograph
from keras_bert.text.packer import trim_padding


def window_spans(n_pieces, window_length, doc_stride):
    """Where the windows of each text lie: run_squad.py's doc spans, in TF ops (the one layout of
    long-document windows and of the SavedModel's SQuAD `answer` windows).

    Args:
        n_pieces: int `[batch]` pieces of each text.
        window_length: pieces per window, a scalar or `[batch]` (SQuAD: what the question leaves).
        doc_stride: pieces between the starts of a text's windows (above `window_length` it
            counts as `window_length`: no piece is skipped).

    Returns:
        int32 `(document, start, length)`, each `[W]`: the text each window comes from, its first
        piece within that text and its number of pieces; a text that fits is one window.
    """
    n_pieces = tf.cast(n_pieces, tf.int32)
    window_length = tf.broadcast_to(tf.cast(window_length, tf.int32), tf.shape(n_pieces))  # (batch,)
    step = tf.minimum(window_length, tf.cast(doc_stride, tf.int32))  # (batch,)
    num_windows = 1 + (tf.maximum(n_pieces - window_length, 0) + step - 1) // step  # (batch,)
    window_index = tf.ragged.range(num_windows)  # (batch, (windows))
    document = tf.cast(window_index.value_rowids(), tf.int32)  # (W,)
    start = window_index.flat_values * tf.gather(step, document)  # (W,) first piece, within its text
    length = tf.minimum(tf.gather(n_pieces, document) - start, tf.gather(window_length, document))  # (W,)
    return document, start, length


def split_windows(ids, window_length, doc_stride):
    """The windows of each text's pieces.

    Args:
        ids: int `tf.RaggedTensor` `[batch, (pieces)]`.
        window_length: pieces per window (the packed window adds `[CLS]` and `[SEP]`).
        doc_stride: pieces between the starts of a text's windows (above `window_length` it
            counts as `window_length`: no piece is skipped).

    Returns:
        `(windows, document)`: `windows` `[W, (<= window_length)]` the pieces of every window,
        in text order; `document` int32 `[W]` the row of `ids` each window comes from.

    Example:
        >>> windows, document = split_windows(tf.ragged.constant([[1, 2, 3, 4, 5], [6]]), 3, 2)
        >>> windows.to_list(), document.numpy().tolist()
        ([[1, 2, 3], [3, 4, 5], [6]], [0, 0, 1])
    """
    document, start, length = window_spans(ids.row_lengths(), window_length, doc_stride)
    first = tf.cast(tf.gather(ids.row_starts(), document), tf.int32) + start  # (W,) in ids.flat_values
    piece = tf.ragged.range(length) + first[:, tf.newaxis]  # (W, (length))
    return tf.gather(ids.flat_values, piece), document


def aggregate_windows(values, document, num_documents, aggregate="mean"):
    """Per-document `values` `[W, ...]` of windows: their mean (default) or maximum over each
    document's windows (`document` int `[W]`, `num_documents` an int or scalar tensor).

    Example:
        >>> aggregate_windows(tf.constant([[1., 4.], [3., 0.], [5., 5.]]), tf.constant([0, 0, 1]), 2)
        <tf.Tensor: shape=(2, 2), dtype=float32, numpy=array([[2., 2.], [5., 5.]], dtype=float32)>
    """
    segment = tf.cast(document, tf.int32)
    if aggregate == "mean":
        return tf.math.unsorted_segment_mean(values, segment, num_documents)
    if aggregate == "max":
        return tf.math.unsorted_segment_max(values, segment, num_documents)
    raise ValueError(f"aggregate={aggregate!r} (--aggregate) is not one of ('mean', 'max').")


def pack_windows(tokenizer, texts, seq_length, doc_stride):
    """`[batch]` texts -> `(features, document)`: encoder inputs `[W, seq_length]` of every window,
    `[CLS] window [SEP]`, and `document` int32 `[W]` (the text of each window)."""
    from keras_bert.text.packer import pack_segments

    windows, document = split_windows(tokenizer.tokenize(texts), seq_length - 2, doc_stride)
    features = pack_segments([windows], seq_length, tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id,
                             truncation=None)
    return features, document


def window_dataset(preprocessor, texts, targets, doc_stride, batch_size=32, shuffle=True, seed=0,
                   drop_remainder=False, dynamic_padding=False):
    """tf.data of `(features, targets)`, one element per window: every window of a text carries
    the text's target, and `features["document"]` (int32) the text's row in `texts`.

    The texts are tokenized and windowed once, up front (the reader holds the file in memory
    already); windows are packed as `preprocessor` packs a text. `dynamic_padding`: each batch
    cut to its longest window. Drop `document` before `fit` / `predict` (`without_document`).
    """
    features, document = pack_windows(preprocessor.tokenizer, tf.constant(texts, tf.string),
                                      preprocessor.seq_length, doc_stride)
    features["document"] = document
    dataset = tf.data.Dataset.from_tensor_slices((features, tf.gather(targets, document)))
    if shuffle:
        dataset = dataset.shuffle(int(document.shape[0]), seed=seed, reshuffle_each_iteration=True)
    dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    if dynamic_padding:
        dataset = dataset.map(no_autograph(lambda features, y: (trim_padding(features, keep=("document",)), y)),
                              num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.prefetch(tf.data.AUTOTUNE)


def without_document(dataset):
    """`dataset` of `window_dataset` with `features["document"]` dropped (what the model takes)."""
    return dataset.map(no_autograph(lambda features, y: ({k: v for k, v in features.items() if k != "document"}, y)))


