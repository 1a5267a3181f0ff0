"""TFLite export of a tiny classifier: float32 parity and the tokenizer-in-graph model's ids."""

import os

import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export import export_tflite
from keras_bert.export.tflite import check_ops_resolve, fast_tokenizer

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "",
    "Héllo wörld: naïve café owners in Zürich said déjà vu!",
    "don't can't o'clock e.g. U.S.A. 3.14 1,000,000 10:30pm ##ing",
    "CJK 中文字符 mixed with text, and emoji 😀 too",
    "tab\tnewline\n  many   spaces  ",
    " ".join(["It was the best of times, it was the worst of times"] * 30),
]


LABELS = ["negative", "neutral", "positive"]


@pytest.fixture(scope="module")
def tflite_export(tiny_classifier, tokenizer, tmp_path_factory):
    out = tmp_path_factory.mktemp("tflite")
    return export_tflite(tiny_classifier, out, tokenizer=tokenizer, seq_length=48, quantizations=("float32",),
                         sample_texts=TEXTS, options={"labels": LABELS})


@pytest.mark.slow
def test_float32_and_text_model_match_keras(tflite_export):
    assert tflite_export.ok, tflite_export.table()
    rows = {(r.artifact, r.signature, r.output): r for r in tflite_export.rows}
    assert rows[("tflite_float32", "serving_default", "logits")].max_abs_diff <= 1e-4
    for label in ("serve_text[text_a]", "serve_text[text_a+text_b]"):
        assert rows[("tflite_text_float32", label, "logits")].max_abs_diff <= 1e-4
        # The in-graph tokenizer + packer give exactly the Python Tokenizer's ids.
        for name in ("input_word_ids", "input_mask", "input_type_ids"):
            assert rows[("tflite_text_float32", label, name)].agreement == 1.0
    assert sorted(os.listdir(tflite_export.path)) == ["model_float32.tflite", "text_float32.tflite"]


def test_classify_signature_returns_label_names(tflite_export):
    # Run in a fresh process (ai_edge_litert): the same probabilities as Keras on the same ids, and
    # the names of the top classes, for single texts and pairs.
    rows = [r for r in tflite_export.rows if r.signature.startswith("classify[")]
    assert {(r.signature, r.output) for r in rows} == {
        (f"classify[{label}]", output) for label in ("text_a", "text_a+text_b")
        for output in ("labels", "probabilities", "top_label")}
    assert all(r.ok for r in rows), tflite_export.table()
    assert all(r.max_abs_diff <= 1e-4 for r in rows if r.output == "probabilities")


def test_text_model_uses_only_builtins_and_tensorflow_text_ops(tflite_export):
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_path=tflite_export.extra["files"]["text_float32"])
    ops = {op["op_name"] for op in interpreter._get_ops_details()}  # pylint: disable=protected-access
    custom = {op for op in ops if not op.replace("_", "").isupper()}
    assert custom <= {"FastBertNormalize", "FastWordpieceTokenizeWithOffsets", "TFText>RoundRobinTrim",
                      "RaggedTensorToTensor"}, custom
    assert not any(op.startswith("Flex") for op in ops)


def test_fast_twin_of_reference_tokenizer(tokenizer):
    twin = fast_tokenizer(tokenizer)
    assert twin.normalization == "fast" and twin.vocab == tokenizer.vocab
    plain = ["the quick brown fox", "a b c"]
    assert twin.tokenize(tf.constant(plain)).to_list() == tokenizer.tokenize(tf.constant(plain)).to_list()
    # A cased contract stays cased in the TFLite text model (the uncased vocab: capitals are [UNK]).
    cased = fast_tokenizer(keras_bert.Tokenizer(tokenizer.vocab_path, lower_case=False))
    assert cased.lower_case is False
    assert cased.tokenize(tf.constant(["The Fox"])).to_list() == [[tokenizer.unk_id, tokenizer.unk_id]]


def test_fast_twin_packs_pairs_as_the_family(tokenizer):
    """Issue 44: a DistilBERT QA export's TFLite text model typed B 1 (a token_type gather error); the twin packs
    pairs as `bind_pair_layout` bound the reference tokenizer."""
    bound = keras_bert.Tokenizer(tokenizer.vocab_path)
    bound.pair_layout = "bert_one_type"
    assert fast_tokenizer(bound).pair_layout == "bert_one_type"
    assert getattr(fast_tokenizer(keras_bert.Tokenizer(tokenizer.vocab_path)), "pair_layout", "bert") == "bert"


def test_unrunnable_custom_op_is_caught_at_conversion():
    function = tf.function(lambda x: tf.strings.regex_replace(x, "a+", "b"),
                           input_signature=[tf.TensorSpec([None], tf.string)])
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function.get_concrete_function()])
    converter.allow_custom_ops = True  # the converter "succeeds" and keeps RegexReplace as a custom op
    content = converter.convert()
    with pytest.raises(RuntimeError, match="no interpreter can run"):
        check_ops_resolve(content)


def test_existing_files_are_refused(tflite_export, tiny_classifier, tokenizer):
    with pytest.raises(FileExistsError, match="overwrite"):
        export_tflite(tiny_classifier, tflite_export.path, tokenizer=tokenizer, quantizations=("float32",))
    with pytest.raises(ValueError, match="quantization"):
        export_tflite(tiny_classifier, tflite_export.path + "_x", quantizations=("int4",))


def test_text_pair_batches_of_different_sizes_fail_cleanly(tflite_export):
    """TFLite has no assert op, so the SavedModel's readable check cannot travel; a mismatched
    pair still fails at invoke with an error (measured: GATHER 'failed to prepare'), never a
    crash or a silently packed row."""
    import numpy as np
    import tensorflow_text
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    interpreter = InterpreterWithCustomOps(
        model_path=tflite_export.extra["files"]["text_float32"],
        custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
    run = interpreter.get_signature_runner("serve_text_pair")
    two, three = np.array([b"one", b"two"], object), np.array([b"a", b"b", b"c"], object)
    assert run(text_a=two, text_b=two)["input_word_ids"].shape[0] == 2
    with pytest.raises(RuntimeError, match=r"3 != 2|\[2\] and \[3\]"):
        run(text_a=two, text_b=three)


def test_pretrainer_fill_mask_converts_and_matches_keras(tiny_config, tokenizer, tmp_path):
    """A pretrainer's fill-mask TFLite model runs (its padded-slot mask once became a bool
    StridedSlice, an op no TFLite interpreter has: every pretrainer export failed at verification)."""
    import keras_bert

    pretrainer = keras_bert.build_pretrainer(tiny_config)
    report = export_tflite(pretrainer, tmp_path, tokenizer=tokenizer, seq_length=16, quantizations=("float32",),
                           sample_texts=["the [MASK] is dead .", ""])
    assert report.ok, report.table()
    assert {r.output for r in report.rows} >= {"top_k_ids", "top_k_probabilities"}


def test_parity_table_reports_where_text_ids_differ_from_the_reference(tflite_export):
    # Report-only rows (FastBertTokenizer's NFKC folding vs BERT's reference); these samples fold nothing.
    rows = [r for r in tflite_export.rows if r.output == "ids == reference tokenizer"]
    assert {r.signature for r in rows} == {"serve_text[text_a]", "serve_text[text_a+text_b]"}
    assert all(r.ok and r.agreement == 1.0 and r.note.startswith("report only: equal") for r in rows)
    assert "ids == reference tokenizer" in tflite_export.table()


def test_a_modernbert_classifier_converts_with_its_global_layers_in_chunks(tmp_path):
    """ModernBERT's global layers attend a chunk of queries at a time: that loop once lowered to a
    TensorList (`ops.map`) and its masks to `[:, None]` slices, which TFLite refused ('requires
    element_shape to be static', then a custom StridedSlice). With 4-query chunks the loop runs."""
    from keras_bert.layers.modernbert_block import ModernBertBlock
    from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

    config = ModernBertConfig(vocab_size=100, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=16,
                              max_position_embeddings=32, local_attention=4, pad_token_id=0)
    model = keras_bert.build_classifier(ModernBertEncoder(config), 2)
    blocks = [layer for layer in model._flatten_layers() if isinstance(layer, ModernBertBlock)]
    for block in blocks:
        block.query_chunk = 4  # 16 tokens: four chunks
    report = export_tflite(model, tmp_path, seq_length=16, quantizations=("float32",))
    assert report.ok, report.table()
    assert blocks and {r.output for r in report.rows} == {"logits", "probabilities"}
