"""The answer (SQuAD) signature of exported SavedModels and ONNX, equal to squad_postprocess."""

import json

import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.data import squad_examples, squad_features, squad_postprocess
from keras_bert.data.squad_example import SquadExample
from keras_bert.export import export_onnx, export_saved_model
from keras_bert.tasks import answer_signature
from keras_bert.export.verify import run_artifact
from tests.export.conftest import small_vocab, tiny_config, tokenizer  # noqa: F401 (export's small-vocabulary fixtures)
from tests.export.helpers import FIXTURES, compile_and_fit, randomize

SQUAD_OPTIONS = answer_signature.SquadOptions(doc_stride=8, max_query_length=12, max_answer_length=10)


def task_options(options):
    """The SquadTask options of `options` (export's one mapping); n_best_size and the threshold are the defaults."""
    return {name: getattr(options, name) for name in ("doc_stride", "max_query_length", "max_answer_length",
                                                       "version_2_with_negative")}


@pytest.fixture(scope="module")
def squad_model(tiny_config, tokenizer):
    features = squad_features(squad_examples(f"{FIXTURES}/squad_v1.json"), tokenizer, seq_length=48,
                              doc_stride=SQUAD_OPTIONS.doc_stride, max_query_length=12)
    inputs = {n: features[n] for n in ("input_word_ids", "input_mask", "input_type_ids")}
    targets = {"start_logits": features["start_positions"], "end_logits": features["end_positions"]}
    model = randomize(keras_bert.build_span_labeler(keras_bert.build_encoder(tiny_config)), seed=7)
    return compile_and_fit(model, tf.data.Dataset.from_tensor_slices((inputs, targets)).batch(8), steps=3)


def held_out_questions():
    """Questions of the v2 fixture (not trained on) plus ones with long and empty contexts."""
    examples = squad_examples(f"{FIXTURES}/squad_v2.json")
    pairs = [(e.question, e.context) for e in examples]
    pairs.append(("Who wrote it?", " ".join(e.context for e in examples)))  # many windows
    pairs.append(("Anything?", ""))
    return pairs


SEQ_LENGTH = 48


@pytest.fixture(scope="module")
def served_answers(squad_model, tokenizer, tmp_path_factory):
    """`{version_2_with_negative: answer outputs}` of two SavedModels (SQuAD v1 and v2 options) on the held-out
    questions, both run in one fresh process that imports neither keras nor keras_bert; and that process's imports."""
    import dataclasses

    calls = []
    pairs = held_out_questions()
    inputs = {"question": np.array([q for q, _ in pairs], object), "context": np.array([c for _, c in pairs], object)}
    for version_2 in (False, True):
        options = dataclasses.replace(SQUAD_OPTIONS, version_2_with_negative=version_2)
        export_dir = tmp_path_factory.mktemp("squad") / "1"
        export_saved_model(squad_model, export_dir, tokenizer=tokenizer, seq_length=SEQ_LENGTH,
                           options=task_options(options), verify_export=False)
        calls.append(("answer", inputs, export_dir))
    outputs, info = run_artifact("savedmodel", calls[0][2], calls)
    return dict(zip((False, True), outputs)), info["imported"]


@pytest.mark.slow
@pytest.mark.parametrize("version_2", [False, True])
def test_answer_signature_equals_squad_postprocess(squad_model, served_answers, tokenizer, version_2):
    import dataclasses

    options = dataclasses.replace(SQUAD_OPTIONS, version_2_with_negative=version_2)
    seq_length = SEQ_LENGTH
    pairs = held_out_questions()
    outputs, imported = served_answers
    out = outputs[version_2]
    assert not {"keras", "keras_bert"} & set(imported)
    examples = [SquadExample(qas_id=str(i), question=q, context=c, answer_text="", answer_start=-1,
                             answers=(), is_impossible=False, title="") for i, (q, c) in enumerate(pairs)]
    features = squad_features(examples, tokenizer, seq_length=seq_length, doc_stride=options.doc_stride,
                              max_query_length=options.max_query_length)
    logits = squad_model.predict({n: features[n] for n in ("input_word_ids", "input_mask", "input_type_ids")},
                                 verbose=0)
    expected = squad_postprocess(features, logits["start_logits"], logits["end_logits"],
                                 n_best_size=options.n_best_size, max_answer_length=options.max_answer_length,
                                 version_2_with_negative=version_2)
    answers = [t.decode() for t in out["answer_text"]]
    assert answers == [expected[str(i)] for i in range(len(pairs))]
    for (_, context), text, start, end in zip(pairs, answers, out["start_char"], out["end_char"]):
        assert (context[start:end] == text) if text else (start == end == -1), (text, start, end)
    assert any(answers), json.dumps(answers)


def test_onnx_best_span_equals_squad_postprocess(squad_model, tokenizer, tmp_path):
    # model.onnx takes ids; its best span (positions) mapped through the features' character
    # offsets must be squad_postprocess's answer wherever the context fits one window (any sequence
    # length: the ONNX model's is dynamic; 192 fits most held-out contexts whole).
    seq_length = 192
    export_onnx(squad_model, tmp_path, tokenizer=tokenizer, seq_length=seq_length, options=task_options(SQUAD_OPTIONS),
                optimize=False, verify_export=False)
    pairs = held_out_questions()
    examples = [SquadExample(qas_id=str(i), question=q, context=c, answer_text="", answer_start=-1,
                             answers=(), is_impossible=False, title="") for i, (q, c) in enumerate(pairs)]
    features = squad_features(examples, tokenizer, seq_length=seq_length, doc_stride=SQUAD_OPTIONS.doc_stride,
                              max_query_length=SQUAD_OPTIONS.max_query_length)
    single = np.bincount(features["example_index"], minlength=len(pairs)) == 1
    rows = np.nonzero(single[features["example_index"]])[0]
    ids = {n: features[n][rows] for n in ("input_word_ids", "input_mask", "input_type_ids")}
    text_calls = [("", {"text_a": np.array([pairs[e][0]], object), "text_b": np.array([pairs[e][1]], object)},
                   tmp_path / "text_model.onnx") for e in features["example_index"][rows]]
    (out, *text_out), info = run_artifact("onnx", tmp_path / "model.onnx", [("", ids)] + text_calls)
    assert "tensorflow" not in info["imported"]
    logits = squad_model.predict(ids, verbose=0)
    subset = {k: (v[rows] if isinstance(v, np.ndarray) and len(v) == len(features["example_index"]) else v)
              for k, v in features.items()}
    expected = squad_postprocess(subset, logits["start_logits"], logits["end_logits"],
                                 n_best_size=SQUAD_OPTIONS.n_best_size,
                                 max_answer_length=SQUAD_OPTIONS.max_answer_length)
    answers = []
    for row, start, end in zip(rows, out["answer_start"], out["answer_end"]):
        offsets = features["offsets"][row]
        answers.append(features["context"][row][offsets[start, 0]:offsets[end, 1]] if start >= 0 else "")
    assert answers == [expected[features["qas_id"][row]] for row in rows]
    assert len(rows) >= 3 and any(answers), answers
    # Raw text in (text_model.onnx): where its tokenizer packs the features' ids (the question was not
    # cut to max_query_length), it picks the same span.
    same_ids = 0
    for i, (row, result) in enumerate(zip(rows, text_out)):
        if result["input_word_ids"][0].tolist() == ids["input_word_ids"][i].tolist():
            same_ids += 1
            assert (result["answer_start"][0], result["answer_end"][0]) == (out["answer_start"][i], out["answer_end"][i])
    assert same_ids >= 3, same_ids


def test_the_ids_answer_finds_b_by_its_separators_and_no_span_is_score_0_in_onnx():
    """`span_from_ids` through tf2onnx + onnxruntime: a family that types B 0 (DistilBERT, RoBERTa) still answers
    from B, found after the question's separators; a row with no B (one text) answers nothing with score 0 in
    both (before: -inf marked no span, and tf2onnx's select, a multiply-and-add, made it NaN)."""
    import onnxruntime
    import tf2onnx

    ids = np.array([[2, 7, 8, 3, 9, 10, 11, 3], [2, 7, 8, 3, 0, 0, 0, 0]], np.int32)  # [CLS]=2, [SEP]=3
    inputs = {"input_word_ids": ids, "input_mask": (ids > 0).astype(np.int32), "input_type_ids": np.zeros_like(ids)}
    logits = np.zeros((2, 8), np.float32)
    logits[:, 1], logits[:, 5] = 5.0, 4.0  # the question's piece scores higher than B's: B must be found anyway

    def answer(word_ids, mask, type_ids, start, end):
        features = {"input_word_ids": word_ids, "input_mask": mask, "input_type_ids": type_ids}
        return answer_signature.span_from_ids(features, start, end, SQUAD_OPTIONS, sep_id=3, layout="bert_one_type")

    spec = [tf.TensorSpec([None, None], tf.int32)] * 3 + [tf.TensorSpec([None, None], tf.float32)] * 2
    model, _ = tf2onnx.convert.from_function(tf.function(answer, input_signature=spec), input_signature=spec)
    session = onnxruntime.InferenceSession(model.SerializeToString())
    arguments = [inputs["input_word_ids"], inputs["input_mask"], inputs["input_type_ids"], logits, logits]
    onnx = dict(zip([o.name for o in session.get_outputs()], session.run(None, dict(zip(
        [i.name for i in session.get_inputs()], arguments)))))
    eager = {name: value.numpy() for name, value in answer(*map(tf.constant, arguments)).items()}
    for outputs in (eager, onnx):
        by_name = {name.split(":")[0]: value for name, value in outputs.items()}
        np.testing.assert_array_equal(by_name["answer_start"], [5, -1])
        np.testing.assert_array_equal(by_name["score"], [8.0, 0.0])
