"""Raw text in ONNX: onnxruntime-extensions' `BertTokenizer` op in front of the id-level model.

`text_model.onnx` takes one example per call: `text_a` (string `[1]`) and `text_b` (string `[0]`
or `[1]`; empty for single texts), runs the `BertTokenizer` custom op (domain
`ai.onnx.contrib`; load with `SessionOptions.register_custom_ops_library(
onnxruntime_extensions.get_library_path())`), trims to `seq_length` as our packer does
(round robin for pairs; no padding, one example is its own longest; a span labeler's to
`seq_length`, as its n-best in `squad_postprocess` sees padding), then the same graph as
`model.onnx` (`ServingModule.answer_from_ids`: a labelled classifier's `top_label`, a span labeler's
best span). It also returns the packed
`input_word_ids`, `input_mask` and `input_type_ids`. Not the op's `offset_mapping`: in 0.15.2
it is wrong after punctuation and throughout the second segment (shifted by a piece), so
character offsets (entities, answer text) stay with the SavedModel.

The op is its own WordPiece implementation, not BERT's reference tokenizer, so `model.onnx`
(ids in, fed by `keras_bert.Tokenizer`) stays the exact model. Measured against our `Tokenizer`
(= Hugging Face's BertTokenizerFast) with MiniLM's uncased vocabulary (onnxruntime-extensions
0.15.2; `id_agreement`): every 10th line of the Shakespeare corpus, 25,407 of 25,407 lines
equal; the hard cases of tests/text, 16 of 30. The classes of difference:
  - literal special tokens are split as text: `[MASK]` -> `[`, `mask`, `]` (Google's BERT,
    our `split_special_tokens=True`);
  - NUL ends the text: nothing after `\x00` is tokenized;
  - characters BERT drops (U+FFFD, BOM, DEL, private use) or reads as spaces (U+2028, U+2029,
    U+1680) stay in the word, which becomes `[UNK]`;
  - lowercasing and accent stripping miss letters outside Latin-1: capital Greek and Cyrillic,
    `Œ`, `İ`, the Kelvin sign, `Ё`, precomposed Greek with diacritics, `ǰ`; Hangul syllables are
    not decomposed into jamo;
  - fullwidth punctuation (`！？`) is not split off;
  - a word whose WordPiece fails part-way keeps the pieces found so far plus one `[UNK]` (BERT:
    the whole word is one `[UNK]`).
  - a pair with an empty `text_a` or `text_b` is packed as one segment, `[CLS] X [SEP]` (our
    packer keeps the empty segment: `[CLS] [SEP] B [SEP]`, `[CLS] A [SEP] [SEP]`).
The op takes one example (it has no batch axis), and ignores its `model_max_length` in 0.15:
the trimming to `seq_length` is ours and keeps what `RoundRobinTrimmer` keeps.
"""

import numpy as np
import tensorflow as tf

from keras_bert.compat import ortx_library, tf2onnx_bounded_memory
from keras_bert.export import verify
from keras_bert.export.onnx_ops import TOLERANCE, check_ops
from keras_bert.export.serving_module import ServingModule
from keras_bert.text.packer import round_robin_lengths

DOMAIN = "ai.onnx.contrib"
_TOKENIZER_OUTPUTS = ("tokenizer_ids", "tokenizer_type_ids", "tokenizer_mask", "tokenizer_offsets")


def tokenizer_model(tokenizer, opset=17):
    """An ONNX model: `text_a` `[1]`, `text_b` `[0|1]` -> the BertTokenizer op's int64 outputs."""
    from onnx import TensorProto, helper  # pylint: disable=import-outside-toplevel

    with open(tokenizer.vocab_path, encoding="utf-8") as f:
        vocab = f.read()
    texts = helper.make_node("Concat", ["text_a", "text_b"], ["texts"], axis=0)
    node = helper.make_node(
        "BertTokenizer", ["texts"], list(_TOKENIZER_OUTPUTS), domain=DOMAIN, vocab_file=vocab,
        do_lower_case=int(tokenizer.lower_case), strip_accents=int(tokenizer.lower_case))
    string = lambda name, size: helper.make_tensor_value_info(name, TensorProto.STRING, [size])  # noqa: E731
    graph = helper.make_graph(
        [texts, node], "keras_bert_bert_tokenizer", [string("text_a", 1), string("text_b", "text_b")],
        [helper.make_tensor_value_info(name, TensorProto.INT64, ["pieces", 2] if name.endswith("offsets") else ["pieces"])
         for name in _TOKENIZER_OUTPUTS])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(DOMAIN, 1)])


def trim_and_batch(ids, type_ids, seq_length, pad=False):
    """The op's `[CLS] A [SEP] (B [SEP])` `[n]` -> `[1, m]` encoder inputs, `m <= seq_length` (one
    example is its own longest: no padding, as the packer's `padding="longest"`); `pad`: right-padded
    to `[1, seq_length]` (SQuAD: squad_postprocess's n-best sees the padding positions too).

    Keeps what the packer keeps (`packer.round_robin_lengths`): a short segment whole, two long
    ones sharing the budget (A takes the odd piece).
    """
    ids, type_ids = tf.cast(ids, tf.int32), tf.cast(type_ids, tf.int32)
    len_a = tf.reduce_sum(tf.cast(tf.equal(type_ids, 0), tf.int32)) - 2
    has_b = tf.cast(tf.reduce_any(tf.equal(type_ids, 1)), tf.int32)
    len_b = tf.maximum(tf.reduce_sum(type_ids) - 1, 0)
    budget = seq_length - 2 - has_b
    keep_a, keep_b = round_robin_lengths([len_a, len_b], budget)  # len_b = 0 without B: A keeps min(len_a, budget)
    tail = tf.concat([tf.range(len_a + 2, len_a + 2 + keep_b), [len_a + 2 + len_b]], 0)[:has_b * (keep_b + 1)]
    index = tf.concat([tf.range(keep_a + 1), [len_a + 1], tail], 0)  # [m] kept positions
    padding = [[0, seq_length - tf.size(index) if pad else 0]]
    batch = lambda values: tf.pad(values, padding)[tf.newaxis]  # noqa: E731
    return {"input_word_ids": batch(tf.gather(ids, index)), "input_mask": batch(tf.ones_like(index)),
            "input_type_ids": batch(tf.gather(type_ids, index))}


def export_onnx_text(model, path, tokenizer, seq_length=128, options=None, opset=17):
    """Writes `text_model.onnx` (see the module docstring) to `path`; returns the serving object."""
    import onnx  # pylint: disable=import-outside-toplevel
    import tf2onnx  # pylint: disable=import-outside-toplevel

    module = ServingModule(model, tokenizer, seq_length=seq_length, runtime_checks=False, string_outputs=False,
                           options=options)

    one_type = getattr(module.serving.tokenizer, "pair_layout", "bert") == "bert_one_type"  # DistilBERT: B typed 0

    def from_tokenizer(tokenizer_ids, tokenizer_type_ids):
        inputs = trim_and_batch(tokenizer_ids, tokenizer_type_ids, module.serving.seq_length,
                                pad=module.serving.pads_text_to_seq_length)
        if one_type:  # the op types B 1 (trim_and_batch reads it); the family has one row (`bind_pair_layout`)
            inputs["input_type_ids"] = tf.zeros_like(inputs["input_type_ids"])
        return dict(module.serving.answer_from_ids(inputs), **inputs)

    spec = [tf.TensorSpec([None], tf.int64, name="tokenizer_ids"),
            tf.TensorSpec([None], tf.int64, name="tokenizer_type_ids")]
    with tf2onnx_bounded_memory():
        body, _ = tf2onnx.convert.from_function(tf.function(from_tokenizer, autograph=False, input_signature=spec),
                                                input_signature=spec, opset=opset)
    check_ops(body)
    front = tokenizer_model(tokenizer, opset)
    front.ir_version = body.ir_version
    merged = onnx.compose.merge_models(
        front, body, io_map=[(name, name) for name in ("tokenizer_ids", "tokenizer_type_ids")],
        outputs=[output.name for output in body.graph.output])
    onnx.save(merged, path)
    return module.serving


def id_agreement(tokenizer, texts):
    """Share of `texts` whose ids from the BertTokenizer op (onnxruntime, this process) equal
    `tokenizer`'s, and the texts that differ."""
    import onnxruntime  # pylint: disable=import-outside-toplevel

    options = onnxruntime.SessionOptions()
    options.register_custom_ops_library(ortx_library())
    front = tokenizer_model(tokenizer)
    session = onnxruntime.InferenceSession(front.SerializeToString(), options, providers=["CPUExecutionProvider"])
    ours = tokenizer.tokenize(tf.constant(texts)).to_list()
    differ = []
    for text, expected in zip(texts, ours):
        ids = session.run(["tokenizer_ids"], {"text_a": np.array([text], object),
                                              "text_b": np.array([], object)})[0]
        if ids[1:-1].tolist() != expected:
            differ.append(text)
    return 1 - len(differ) / max(len(texts), 1), differ


def check_onnx_text(serving, path, texts, pairs=None):
    """The text model in onnxruntime (fresh process) against Keras run on the ids it produced,
    plus a report-only row: how many examples' ids equal our `Tokenizer` + packer's."""
    calls = [("", {"text_a": np.array([a], object),
                   "text_b": np.array([] if pairs is None else [pairs[i]], object)})
             for i, a in enumerate(texts)]
    results, info = verify.run_artifact("onnx", path, calls)
    label = "text_a" if pairs is None else "text_a+text_b"
    ours = serving.preprocessor(tf.constant(texts), None if pairs is None else tf.constant(pairs))
    rows, same = [], []
    for i, actual in enumerate(results):
        ids = {name: actual[name] for name in ("input_word_ids", "input_mask", "input_type_ids")}
        reference = {name: np.asarray(value) for name, value in
                     serving.answer_from_ids({k: tf.constant(v) for k, v in ids.items()}).items()}
        rows += verify.compare("onnx_text", f"{label}[{i}]", reference, actual, TOLERANCE,
                               input_mask=ids["input_mask"])
        same.append(ids["input_word_ids"][0].tolist() == ours["input_word_ids"][i].numpy().tolist())
    rows.append(verify.ParityRow("onnx_text", label, "ids == Tokenizer", agreement=float(np.mean(same)),
                                 note="report only: model.onnx with our Tokenizer is the exact model"))
    if {"keras", "keras_bert", "tensorflow"} & set(info["imported"]):
        rows.append(verify.ParityRow("onnx_text", "-", "hermetic load", ok=False, note=f"imported {info['imported']}"))
    return rows
