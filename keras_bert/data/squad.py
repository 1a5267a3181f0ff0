"""SQuAD v1.1 / v2.0: read examples, make strided features, batch them (`squad_answers.py` maps
logits back to text).

Windowing runs in Python, as in Google's `run_squad.py` and Hugging Face's
`run_qa.py`: the document stride and the answer positions are bookkeeping, not
tensor math. The pieces and their character spans in the context both come from
`Tokenizer.tokenize_with_offsets` (one normalization, so offsets and ids cannot
disagree), answers map back to the exact original text, and the windows are
packed by the one packer.
"""

import itertools
import logging
import os
import re

import numpy as np
import tensorflow as tf

from keras_bert.config import read_json
from keras_bert.data.squad_example import SquadExample
from keras_bert.text.packer import pack_segments, pair_specials
from keras_bert.text.ragged_rows import join_rows

# Contexts per tokenizer call; bounds the eager batch size.
_CONTEXTS_PER_CALL = 256


def squad_examples(path):
    """Reads a SQuAD v1.1 or v2.0 JSON file.

    Args:
        path: the JSON file (`{"data": [{"title", "paragraphs": [{"context", "qas": [...]}]}]}`).

    Returns:
        A list of `SquadExample`, in file order.

    Example:
        >>> examples = squad_examples("dev-v1.1.json")
        >>> examples[0].question
        'Which NFL team represented the AFC at Super Bowl 50?'
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"SQuAD file {path!r} does not exist.")
    data = read_json(path, "a SQuAD v1.1/v2.0 file")
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise ValueError(f"{path!r} has no top-level 'data' list; expected the SQuAD layout "
                         "{'data': [{'title', 'paragraphs': [{'context', 'qas'}]}]}.")
    examples = []
    for a, article in enumerate(data["data"]):
        for p, paragraph in enumerate(_field(article, "paragraphs", list, path, f"data[{a}]", [])):
            where = f"data[{a}].paragraphs[{p}]"
            context = _field(paragraph, "context", str, path, where)
            for q, qa in enumerate(_field(paragraph, "qas", list, path, where, [])):
                at = f"{where}.qas[{q}]"
                qas_id = str(_field(qa, "id", (str, int), path, at))
                question = _field(qa, "question", str, path, at)
                answers = _field(qa, "answers", list, path, at, None) or []
                is_impossible = bool(_field(qa, "is_impossible", (bool, int), path, at, False))
                answer_texts = [_field(answer, "text", str, path, f"{at}.answers[{i}]")
                                for i, answer in enumerate(answers)]
                answer_text, answer_start = "", -1
                if answers and not is_impossible:
                    answer_text = answer_texts[0]
                    start = _field(answers[0], "answer_start", int, path, f"{at}.answers[0]")
                    answer_start = _locate(context, answer_text, start, qas_id)
                examples.append(SquadExample(
                    qas_id=qas_id, question=question, context=context,
                    answer_text=answer_text, answer_start=answer_start,
                    answers=tuple(answer_texts) if not is_impossible else (),
                    is_impossible=is_impossible, title=str(article.get("title", ""))))
    if not examples:
        raise ValueError(f"{path!r} holds no questions; expected paragraphs with 'qas' entries.")
    return examples


_REQUIRED = object()
_KINDS = {str: "text", int: "an integer", list: "a list", bool: "true/false"}


def _field(record, key, kind, path, where, default=_REQUIRED):
    """`record[key]`, checked to be of `kind`; one line naming the file and the entry if not.

    `default`: the value when the key is absent (required if not given); None and absent are alike.
    """
    if not isinstance(record, dict):
        raise ValueError(f"{path!r}: {where} is {_shown(record)}; expected a JSON object (SQuAD layout).")
    value = record.get(key)
    if value is None:
        if default is not _REQUIRED:
            return default
        raise ValueError(f"{path!r}: {where} has no {key!r}; every SQuAD question needs 'id', 'question' and "
                         "a paragraph 'context'.")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
        expected = " or ".join(_KINDS[k] for k in kinds)
        raise ValueError(f"{path!r}: {where}.{key} is {_shown(value)}; expected {expected}.")
    return value


def _shown(value):
    kind = {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{kind} {text[:40] + '...' if len(text) > 40 else text}"


def _locate(context, text, start, qas_id):
    """The answer's character offset: `start` if it points at `text`, else the nearest occurrence."""
    if context[start:start + len(text)] == text:
        return start
    found = [m.start() for m in re.finditer(re.escape(text), context)]
    if not found:
        logging.warning("SQuAD question %s: answer %r is not in its context; it is treated as "
                        "having no answer span.", qas_id, text)
        return -1
    return min(found, key=lambda s: abs(s - start))


def squad_features(examples, tokenizer, seq_length=384, doc_stride=128, max_query_length=64):
    """Turns examples into fixed-length features, sliding a window over long contexts.

    Each feature is `[CLS] question [SEP] context window [SEP]` padded to `seq_length`.
    Windows start `doc_stride` pieces apart. For an answer that lies entirely inside a
    window, the start/end positions are its first/last piece in the packed sequence;
    otherwise (no answer, or the answer not fully in this window) both are 0, the
    `[CLS]` position, as in Google's `run_squad.py`.

    Args:
        examples: `SquadExample`s (from `squad_examples`).
        tokenizer: a `keras_bert.Tokenizer`.
        seq_length: packed length.
        doc_stride: distance in pieces between the starts of consecutive windows.
        max_query_length: questions are cut to this many pieces.

    Returns:
        A dict of numpy arrays, one row per feature: `input_word_ids`, `input_mask`,
        `input_type_ids` (int32 `[n, seq_length]`), `start_positions`, `end_positions`
        (int32 `[n]`), `offsets` (int32 `[n, seq_length, 2]`: each context piece's character
        span `[start, end)` in the context, -1 for other positions), `token_is_max_context`
        (bool `[n, seq_length]`: this window gives the piece its most context),
        `example_index` (int32 `[n]`), `qas_id` and `context` (object `[n]`).

    Example:
        >>> features = squad_features(squad_examples("train-v1.1.json"), tokenizer)
        >>> features["input_word_ids"].shape
        (88641, 384)
    """
    if not examples:
        raise ValueError("squad_features needs at least one example; got none.")
    if doc_stride < 1:
        raise ValueError(f"doc_stride must be >= 1, got {doc_stride}.")
    questions = _to_lists(tokenizer.tokenize(tf.constant([e.question for e in examples])))
    contexts = _tokenize_contexts(sorted({e.context for e in examples}), tokenizer)

    before_b, specials = pair_specials(layout := getattr(tokenizer, "pair_layout", "bert"))  # RoBERTa: 3, 4
    rows = []  # per feature: query, window, start, end, offsets, max_context, example_index, qas_id, context
    for example_index, example in enumerate(examples):
        query = questions[example_index][:max_query_length]
        doc_ids, doc_offsets = contexts[example.context]
        answer_span = _answer_pieces(example, doc_offsets)
        max_doc = seq_length - len(query) - specials
        if max_doc < 1:
            raise ValueError(
                f"seq_length={seq_length} leaves no room for the context of question "
                f"{example.qas_id!r} ({len(query)} pieces) after [CLS] and two [SEP]; raise "
                f"seq_length or lower max_query_length={max_query_length}.")
        windows = _windows(len(doc_ids), max_doc, doc_stride)
        best_window = _max_context_windows(windows, len(doc_ids))
        doc_offset = len(query) + before_b  # position of the first context piece: [CLS] query [SEP]
        for window_index, (window_start, window_length) in enumerate(windows):
            window_end = window_start + window_length  # exclusive
            offsets = np.full([seq_length, 2], -1, np.int32)
            offsets[doc_offset:doc_offset + window_length] = doc_offsets[window_start:window_end]
            max_context = np.zeros([seq_length], bool)
            max_context[doc_offset:doc_offset + window_length] = (
                best_window[window_start:window_end] == window_index)
            start = end = 0
            if answer_span is not None and window_start <= answer_span[0] and answer_span[1] < window_end:
                start = answer_span[0] - window_start + doc_offset
                end = answer_span[1] - window_start + doc_offset
            rows.append((query, doc_ids[window_start:window_end], start, end, offsets, max_context,
                         example_index, example.qas_id, example.context))

    queries, pieces, starts, ends, spans, max_contexts, example_indices, qas_ids, texts = zip(*rows)
    packed = pack_segments([_ragged(queries), _ragged(pieces)], seq_length,
                           tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id, truncation=None, layout=layout)
    features = {name: value.numpy() for name, value in packed.items()}
    features.update({
        "start_positions": np.asarray(starts, np.int32),
        "end_positions": np.asarray(ends, np.int32),
        "offsets": np.stack(spans),  # (features, seq_length, 2)
        "token_is_max_context": np.stack(max_contexts),
        "example_index": np.asarray(example_indices, np.int32),
        "qas_id": np.asarray(qas_ids, object),
        "context": np.asarray(texts, object),
    })
    return features


def squad_dataset(features, batch_size=32, shuffle=True, seed=0, drop_remainder=False):
    """Batches `squad_features` output for `model.fit` / `model.predict`.

    Args:
        features: the dict from `squad_features`.
        batch_size: features per batch.
        shuffle: shuffle (full shuffle, reshuffled every epoch); use False for prediction,
            so logits line up with `features` for `squad_postprocess`.
        seed: shuffle seed.
        drop_remainder: drop the last partial batch.

    Returns:
        A `tf.data.Dataset` of `(inputs, {"start_positions", "end_positions"})`, inputs being
        the encoder input dict (int32 `[batch, seq_length]`), positions int32 `[batch]`.

    Example:
        >>> features = squad_features(squad_examples("train-v1.1.json"), tokenizer)
        >>> model.fit(squad_dataset(features), epochs=2)
    """
    inputs = {name: features[name] for name in ("input_word_ids", "input_mask", "input_type_ids")}
    targets = {name: features[name] for name in ("start_positions", "end_positions")}
    dataset = tf.data.Dataset.from_tensor_slices((inputs, targets))
    if shuffle:
        dataset = dataset.shuffle(len(features["input_word_ids"]), seed=seed, reshuffle_each_iteration=True)
    return dataset.batch(batch_size, drop_remainder=drop_remainder).prefetch(tf.data.AUTOTUNE)


def _tokenize_contexts(contexts, tokenizer):
    """Returns `{context: (piece ids, int32 [pieces, 2] character spans)}`, both from the tokenizer."""
    result = {}
    for i in range(0, len(contexts), _CONTEXTS_PER_CALL):
        batch = contexts[i:i + _CONTEXTS_PER_CALL]
        ids, starts, ends = (_to_lists(join_rows(t.row_splits, t.values))  # [contexts, (pieces)]
                             for t in tokenizer.tokenize_with_offsets(tf.constant(batch)))
        for context, row_ids, row_starts, row_ends in zip(batch, ids, starts, ends):
            spans = np.asarray([row_starts, row_ends], np.int32).T.reshape([-1, 2])
            result[context] = (row_ids, spans)
    return result


def _ragged(rows):
    """Lists of ids -> int32 ragged `[rows, (ids)]` (faster than tf.ragged.constant)."""
    lengths = np.asarray([len(r) for r in rows], np.int64)
    values = np.fromiter(itertools.chain.from_iterable(rows), np.int32, count=int(lengths.sum()))
    return tf.RaggedTensor.from_row_lengths(values, lengths)


def _to_lists(ragged):
    """Nested Python lists of a ragged tensor (RaggedTensor.to_list slices row by row: ~100x slower)."""
    values = ragged.flat_values.numpy().tolist()
    for splits in reversed(ragged.nested_row_splits):
        splits = splits.numpy().tolist()
        values = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
    return values


def _answer_pieces(example, doc_offsets):
    """First and last context piece (inclusive) covering the answer's characters, or None."""
    if example.is_impossible or example.answer_start < 0 or not example.answer_text:
        return None
    answer_start = example.answer_start
    answer_end = answer_start + len(example.answer_text)
    inside = np.nonzero((doc_offsets[:, 1] > answer_start) & (doc_offsets[:, 0] < answer_end))[0]
    if len(inside) == 0:
        return None
    return int(inside[0]), int(inside[-1])


def _windows(n_pieces, max_doc, doc_stride):
    """`(start, length)` of each window over the context pieces (run_squad.py's doc spans)."""
    windows, start = [], 0
    while True:
        length = min(n_pieces - start, max_doc)
        windows.append((start, length))
        if start + length >= n_pieces:
            return windows
        start += min(length, doc_stride)


def _max_context_windows(windows, n_pieces):
    """For every context piece, the window that gives it the most context (run_squad.py's rule).

    A piece's score in a window is min(pieces left of it, pieces right of it) + 0.01 * window
    length; the first window with the best score wins.
    """
    starts = np.asarray([start for start, _ in windows])[:, None]  # (windows, 1)
    lengths = np.asarray([length for _, length in windows])[:, None]  # (windows, 1)
    positions = np.arange(n_pieces)[None, :]  # (1, pieces)
    ends = starts + lengths - 1
    scores = np.minimum(positions - starts, ends - positions) + 0.01 * lengths  # (windows, pieces)
    scores = np.where((positions >= starts) & (positions <= ends), scores, -np.inf)
    return np.argmax(scores, axis=0)  # (pieces,)
