"""SQuAD: examples, strided features, char offsets (vs Hugging Face tokenizers), postprocess, metric."""

import os

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.squad import squad_dataset, squad_examples, squad_features
from keras_bert.data.squad_answers import squad_postprocess
from keras_bert.data.squad_example import SquadExample
from keras_bert.data.squad_metrics import f1_score, normalize_answer, squad_evaluate
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.tokenizer import Tokenizer

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
V1 = os.path.join(FIXTURES, "squad_v1.json")
V2 = os.path.join(FIXTURES, "squad_v2.json")
# Small windows so the long Eiffel Tower paragraph (~250 pieces) is cut into many windows.
SEQ_LENGTH, DOC_STRIDE = 64, 16


@pytest.fixture(scope="module")
def tokenizer(minilm_dir):
    return Tokenizer(os.path.join(minilm_dir, "vocab.txt"))


@pytest.fixture(scope="module")
def v1(tokenizer):
    examples = squad_examples(V1)
    return examples, squad_features(examples, tokenizer, seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE)


@pytest.fixture(scope="module")
def v2(tokenizer):
    examples = squad_examples(V2)
    return examples, squad_features(examples, tokenizer, seq_length=SEQ_LENGTH, doc_stride=DOC_STRIDE)


def _span_text(features, i, start, end):
    offsets = features["offsets"][i]
    return features["context"][i][offsets[start, 0]:offsets[end, 1]]


def _one_hot_logits(features):
    n, seq_length = features["input_word_ids"].shape
    start_logits, end_logits = np.zeros([n, seq_length]), np.zeros([n, seq_length])
    start_logits[np.arange(n), features["start_positions"]] = 1.0
    end_logits[np.arange(n), features["end_positions"]] = 1.0
    return start_logits, end_logits


def test_examples_parsed():
    examples = squad_examples(V1)
    assert len(examples) == 8
    first = examples[0]
    assert (first.qas_id, first.title, first.is_impossible) == ("eiffel-1", "Eiffel_Tower", False)
    assert first.answers == ("Gustave Eiffel", "the engineer Gustave Eiffel")
    for example in examples:
        assert example.context[example.answer_start:][:len(example.answer_text)] == example.answer_text
    v2 = {e.qas_id: e for e in squad_examples(V2)}
    assert v2["photo-2"].is_impossible and v2["photo-2"].answers == () and v2["photo-2"].answer_start == -1
    assert not v2["photo-3"].is_impossible and v2["photo-3"].answers == ("the Calvin cycle", "Calvin cycle")


def test_feature_layout(v1, tokenizer):
    examples, features = v1
    n = len(features["example_index"])
    assert n > 2 * len(examples)  # the long paragraph gives many windows
    for name in ("input_word_ids", "input_mask", "input_type_ids"):
        assert features[name].shape == (n, SEQ_LENGTH) and features[name].dtype == np.int32
    assert features["offsets"].shape == (n, SEQ_LENGTH, 2)
    for i in range(n):
        ids, types = features["input_word_ids"][i], features["input_type_ids"][i]
        length = features["input_mask"][i].sum()
        example = examples[features["example_index"][i]]
        query = tokenizer.tokenize(tf.constant(example.question)).numpy().tolist()
        assert ids[0] == tokenizer.cls_id and list(ids[1:1 + len(query)]) == query
        assert ids[1 + len(query)] == tokenizer.sep_id and ids[length - 1] == tokenizer.sep_id
        np.testing.assert_array_equal(ids[length:], tokenizer.pad_id)
        np.testing.assert_array_equal(types[:len(query) + 2], 0)
        np.testing.assert_array_equal(types[len(query) + 2:length], 1)
        # Offsets exist exactly on context pieces, and each piece spells its context characters.
        is_context = features["offsets"][i][:, 0] >= 0
        np.testing.assert_array_equal(np.nonzero(is_context)[0], np.arange(len(query) + 2, length - 1))
        for position in np.nonzero(is_context)[0]:
            piece = tokenizer.id_to_token(ids[position]).removeprefix("##")
            assert normalize_answer(_span_text(features, i, position, position)) == \
                normalize_answer(piece) or piece == "[UNK]"
    # Windows of one context step by doc_stride: window k+1 starts with the piece at stride k.
    first_windows = np.nonzero(features["example_index"] == 0)[0]
    a, b = features["offsets"][first_windows[0]], features["offsets"][first_windows[1]]
    query_end = np.nonzero(a[:, 0] >= 0)[0][0]
    np.testing.assert_array_equal(b[query_end], a[query_end + DOC_STRIDE])


def test_max_context_follows_run_squad(v1):
    """Every context piece is "max context" in exactly one window: the best-scoring one."""
    examples, features = v1
    for example_index in range(len(examples)):
        scores = {}  # char span of a piece -> [(score, row, is_max_context)]
        for i in np.nonzero(features["example_index"] == example_index)[0]:
            context_positions = np.nonzero(features["offsets"][i][:, 0] >= 0)[0]
            first, last = context_positions[0], context_positions[-1]
            for position in context_positions:
                score = min(position - first, last - position) + 0.01 * len(context_positions)
                scores.setdefault(tuple(features["offsets"][i][position]), []).append(
                    (score, i, features["token_is_max_context"][i][position]))
        for candidates in scores.values():
            assert sum(flag for _, _, flag in candidates) == 1
            best = max(candidates, key=lambda c: c[0])  # first of equal scores, as run_squad.py
            assert best[2]


def test_gold_positions_recover_answers_exactly(v1, v2):
    for examples, features in (v1, v2):
        recovered = {}
        for i, example_index in enumerate(features["example_index"]):
            example = examples[example_index]
            start, end = features["start_positions"][i], features["end_positions"][i]
            if start == 0:
                assert end == 0
                continue
            assert features["input_type_ids"][i, start] == 1 and start <= end
            text = _span_text(features, i, start, end)
            assert text == example.answer_text  # the raw string, character for character
            assert normalize_answer(text) == normalize_answer(example.answer_text)
            recovered[example.qas_id] = text
        answerable = {e.qas_id for e in examples if not e.is_impossible}
        assert set(recovered) == answerable
    # Unanswerable questions point every window at [CLS].
    examples, features = v2
    impossible = [examples.index(e) for e in examples if e.is_impossible]
    rows = np.isin(features["example_index"], impossible)
    assert rows.sum() >= 2
    np.testing.assert_array_equal(features["start_positions"][rows], 0)
    np.testing.assert_array_equal(features["end_positions"][rows], 0)


def test_answer_crossing_a_window_boundary(v1):
    """Some answer starts inside an earlier window but only fits entirely in a later one."""
    examples, features = v1
    crossing = []
    for example_index, example in enumerate(examples):
        rows = np.nonzero(features["example_index"] == example_index)[0]
        answer_start, answer_end = example.answer_start, example.answer_start + len(example.answer_text)
        for k, i in enumerate(rows):
            offsets = features["offsets"][i]
            holds_start = ((offsets[:, 0] <= answer_start) & (offsets[:, 1] > answer_start)).any()
            holds_end = ((offsets[:, 0] < answer_end) & (offsets[:, 1] >= answer_end)).any()
            if holds_start and not holds_end:
                assert features["start_positions"][i] == features["end_positions"][i] == 0
                later = [j for j in rows[k + 1:] if features["start_positions"][j] > 0]
                assert later, example.qas_id
                assert _span_text(features, later[0], features["start_positions"][later[0]],
                                  features["end_positions"][later[0]]) == example.answer_text
                crossing.append(example.qas_id)
    assert len(set(crossing)) >= 2, crossing


def test_context_pieces_and_offsets_match_hugging_face(tokenizer, minilm_dir):
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer.from_file(os.path.join(minilm_dir, "tokenizer.json"))
    reference.no_truncation()
    reference.no_padding()
    contexts = sorted({e.context for e in squad_examples(V1) + squad_examples(V2)})
    contexts.append("Straße Ünïcödé ﬁsh 東京タワー a\x07b (1,083 ft) café’s  naïve\tRÉSUMÉ x" + "y" * 120)
    for context in contexts:
        question = "What?"
        examples = [SquadExample("q", question, context)]
        features = squad_features(examples, tokenizer, seq_length=512, doc_stride=128)
        assert len(features["example_index"]) == 1
        is_context = features["offsets"][0][:, 0] >= 0
        encoding = reference.encode(context, add_special_tokens=False)
        assert features["input_word_ids"][0][is_context].tolist() == encoding.ids
        assert features["offsets"][0][is_context].tolist() == [list(o) for o in encoding.offsets]


def test_single_window_matches_preprocessor(tokenizer):
    examples = squad_examples(V1)
    features = squad_features(examples, tokenizer, seq_length=384, doc_stride=128)
    assert len(features["example_index"]) == len(examples)
    expected = Preprocessor(tokenizer, 384)(tf.constant([e.question for e in examples]),
                                            tf.constant([e.context for e in examples]))
    for name, value in expected.items():
        np.testing.assert_array_equal(features[name], value.numpy(), err_msg=name)
    predictions = squad_postprocess(features, *_one_hot_logits(features))
    assert predictions == {e.qas_id: e.answer_text for e in examples}


def test_postprocess_one_hot_gold_logits(v1, v2):
    examples, features = v1
    predictions = squad_postprocess(features, *_one_hot_logits(features))
    assert predictions == {e.qas_id: e.answer_text for e in examples}
    assert squad_evaluate(predictions, examples) == {"exact_match": 100.0, "f1": 100.0}

    examples, features = v2
    predictions = squad_postprocess(features, *_one_hot_logits(features), version_2_with_negative=True)
    assert predictions == {e.qas_id: e.answer_text for e in examples}
    assert predictions["photo-2"] == predictions["ada-3"] == ""
    assert squad_evaluate(predictions, examples) == {"exact_match": 100.0, "f1": 100.0}
    # Without the v2.0 null rule every question gets some span.
    forced = squad_postprocess(features, *_one_hot_logits(features))
    assert forced["photo-2"] != "" and forced["photo-1"] == "the chloroplasts"


def test_postprocess_rules(v1):
    examples, features = v1
    start_logits, end_logits = _one_hot_logits(features)
    # max_answer_length: "330 metres (1,083 ft)" is 9 pieces; a limit of 3 rejects the gold span.
    predictions = squad_postprocess(features, start_logits, end_logits, max_answer_length=3)
    assert predictions["eiffel-3"] != "330 metres (1,083 ft)"
    assert len(predictions["eiffel-3"].split()) <= 3
    # A span in the question (not the context) is never chosen.
    i = int(np.nonzero(features["example_index"] == 7)[0][0])
    bad_start, bad_end = start_logits.copy(), end_logits.copy()
    bad_start[i, 1] = bad_end[i, 2] = 10.0
    assert squad_postprocess(features, bad_start, bad_end)["ada-2"] == "1815–1852"
    with pytest.raises(ValueError, match="shuffle=False"):
        squad_postprocess(features, start_logits[:-1], end_logits[:-1])


def test_squad_dataset(v2):
    _, features = v2
    batches = list(squad_dataset(features, batch_size=4, shuffle=False))
    assert len(batches) == 3
    inputs, targets = batches[0]
    assert set(inputs) == {"input_word_ids", "input_mask", "input_type_ids"}
    assert set(targets) == {"start_positions", "end_positions"}
    assert inputs["input_word_ids"].shape == (4, SEQ_LENGTH) and inputs["input_word_ids"].dtype == tf.int32
    assert targets["start_positions"].shape == (4,) and targets["start_positions"].dtype == tf.int32
    np.testing.assert_array_equal(np.concatenate([b[1]["end_positions"] for b in batches]),
                                  features["end_positions"])
    shuffled = list(squad_dataset(features, batch_size=32, shuffle=True, seed=1))[0]
    order = np.lexsort(shuffled[0]["input_word_ids"].numpy().T)
    np.testing.assert_array_equal(shuffled[0]["input_word_ids"].numpy()[order],
                                  features["input_word_ids"][np.lexsort(features["input_word_ids"].T)])


def test_metric():
    example = SquadExample("q", "Which building?", "...", "the Chrysler Building in New York City", 0,
                           ("the Chrysler Building in New York City", "Chrysler Building"))
    assert normalize_answer("The  Chrysler-Building, in N.Y.!") == "chryslerbuilding in ny"
    assert squad_evaluate({"q": "chrysler building"}, [example]) == {"exact_match": 100.0, "f1": 100.0}
    assert squad_evaluate({"q": "Empire State"}, [example]) == {"exact_match": 0.0, "f1": 0.0}
    # Against gold 2: "empire state building" vs "chrysler building": 1 common token, P = 1/3,
    # R = 1/2, F1 = 2 * (1/3 * 1/2) / (1/3 + 1/2) = 0.4; gold 1 gives P = 1/3, R = 1/6 -> 2/9.
    scores = squad_evaluate({"q": "the Empire State Building"}, [example])
    assert scores["exact_match"] == 0.0
    assert scores["f1"] == pytest.approx(40.0)
    assert f1_score("the Empire State Building", "the Chrysler Building in New York City") == pytest.approx(2 / 9)
    # Missing predictions count as 0; a v2.0 "no answer" gold matches only "".
    impossible = SquadExample("none", "Why?", "...", is_impossible=True)
    assert squad_evaluate({"none": ""}, [example, impossible]) == {"exact_match": 50.0, "f1": 50.0}
    assert squad_evaluate({"none": "something"}, [impossible]) == {"exact_match": 0.0, "f1": 0.0}


def test_bad_input(tokenizer, tmp_path):
    with pytest.raises(FileNotFoundError):
        squad_examples(str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "1.1", "articles": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="no top-level 'data' list"):
        squad_examples(str(bad))
    long_question = SquadExample("q", "why " * 80, "Because.")
    with pytest.raises(ValueError, match="no room for the context"):
        squad_features([long_question], tokenizer, seq_length=64, max_query_length=100)
