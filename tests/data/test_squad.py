"""SQuAD: examples, strided features, char offsets (vs Hugging Face tokenizers), postprocess, metric."""

import os

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data.squad import squad_dataset, squad_examples, squad_features
from keras_bert.data.squad_answers import squad_postprocess
from keras_bert.data.squad_example import SquadExample
from keras_bert.data.squad_metrics import normalize_answer
from keras_bert.text.preprocessor import Preprocessor
from tests.data.squad_helpers import DOC_STRIDE, SEQ_LENGTH, V1, V2, one_hot_logits


def _span_text(features, i, start, end):
    offsets = features["offsets"][i]
    return features["context"][i][offsets[start, 0]:offsets[end, 1]]


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
    predictions = squad_postprocess(features, *one_hot_logits(features))
    assert predictions == {e.qas_id: e.answer_text for e in examples}


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
