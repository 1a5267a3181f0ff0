"""A SavedModel served in bfloat16 (`tools/export.py --precision bf16`): the model rebuilt under
"mixed_bfloat16" with everything it carries, its graph's matmuls in bfloat16, its answers the
float32 model's; and the refusals."""

import os

import numpy as np
import pytest

import keras_bert
from keras_bert.export.precision import cpu_runs_bf16_natively, model_in_precision
from keras_bert.models import builders
from tests.conftest import run_tool
from tests.export.helpers import randomize, save_tiny_classifier

LABELS = ["negative", "neutral", "positive"]


@pytest.fixture(scope="module")
def keras_file(minilm_dir, tmp_path_factory):
    """A tiny fine-tuned classifier with its labels, saved as model.keras with its vocab.txt."""
    return save_tiny_classifier(tmp_path_factory.mktemp("model"), minilm_dir, num_classes=3, labels=LABELS,
                                num_layers=2, seed=7)


def _tiny_config():
    return keras_bert.BertConfig(vocab_size=120, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32)


@pytest.mark.parametrize("build", [
    lambda e: keras_bert.build_classifier(e, 3, task_config={"labels": LABELS}),
    lambda e: keras_bert.build_token_classifier(e, 2, task_config={"labels": ["O", "B-X"]}),
    lambda e: keras_bert.build_span_labeler(e, task_config={"doc_stride": 16}),
    lambda e: builders.build_embedder(e, pooling="cls", normalize=False, task_config={"seq_length": 64}),
    lambda e: keras_bert.build_pretrainer(e),
    lambda e: e,
], ids=["classifier", "token_classifier", "span_labeler", "embedder", "pretrainer", "encoder"])
def test_bf16_rebuilds_the_model_with_its_weights_task_and_options(build):
    model = randomize(build(keras_bert.build_encoder(_tiny_config())), seed=3)
    served = model_in_precision(model, "bf16")
    assert type(served) is type(model) and served is not model
    assert getattr(served, "task", None) == getattr(model, "task", None)
    assert getattr(served, "task_config", None) == getattr(model, "task_config", None)
    assert {layer.dtype_policy.name for layer in _weighted_layers(served)} == {"mixed_bfloat16"}
    for mine, theirs in zip(model.weights, served.weights, strict=True):
        assert mine.shape == theirs.shape and str(theirs.dtype) == "float32"
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    assert model_in_precision(model, "fp32") is model
    with pytest.raises(ValueError, match=r"precision must be one of \('fp32', 'bf16'\), got 'fp16'"):
        model_in_precision(model, "fp16")


def test_bf16_refuses_a_model_it_cannot_rebuild_whole():
    """A head assembled by hand is not a builder's: rebuilding would drop it (an encoder would come back)."""
    import keras  # pylint: disable=import-outside-toplevel

    encoder = keras_bert.build_encoder(_tiny_config())
    inputs = {name: keras.Input((None,), dtype="int32", name=name)
              for name in ("input_word_ids", "input_mask", "input_type_ids")}
    outputs = keras.layers.Dense(5, name="mine")(keras.layers.Dense(7)(encoder(inputs)["pooled_output"]))
    with pytest.raises(ValueError, match=r"cannot be rebuilt in mixed_bfloat16: only a keras_bert builder's model"):
        model_in_precision(keras.Model(inputs, outputs, name="hand_made"), "bf16")


def test_bf16_pretrainer_export_checks_its_probabilities_and_reports_its_top_tokens(tiny_config, tokenizer, tmp_path):
    """A pretrainer's top token over ~6,000 close bfloat16 logits flips between kernels: the ids are
    reported, the probabilities they come from are checked."""
    from keras_bert.export import export_saved_model  # pylint: disable=import-outside-toplevel

    model = randomize(keras_bert.build_pretrainer(tiny_config), seed=2)
    report = export_saved_model(model, tmp_path / "fill" / "1", tokenizer=tokenizer, seq_length=32, precision="bf16")
    assert report.ok
    rows = {(row.signature, row.output): row for row in report.rows}
    assert rows[("serve_ids", "top_k_ids")].note == "reported"
    checked = rows[("serve_ids", "top_k_probabilities")]
    assert checked.note == "" and 0 < checked.max_abs_diff <= checked.tolerance
    assert rows[("serve_ids vs float32", "top_k_probabilities")].tolerance is None


def _weighted_layers(model):
    """The layers that hold weights, inside nested models (the encoder) too."""
    for layer in getattr(model, "layers", ()):
        if getattr(layer, "layers", None):
            yield from _weighted_layers(layer)
        elif layer.weights:
            yield layer


def test_tool_exports_bf16_matmuls_that_answer_as_the_float32_model(keras_file, tmp_path):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import

    base = tmp_path / "savedmodels"
    result = run_tool("export", keras_file, "--base_dir", base, "--formats", "savedmodel", "--seq_length", "32",
                      "--precision", "bf16")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Precision: the SavedModel computes in bfloat16 (outputs float32)." in result.stdout
    assert "All exports match the Keras model." in result.stdout and "FAIL" not in result.stdout
    # The report-only row: how far bfloat16 moved the outputs from the float32 model's.
    drift = {row[4]: float(row[5]) for row in (line.split() for line in result.stdout.splitlines())
             if row[1:4] == ["serve_ids", "vs", "float32"]}
    assert set(drift) == {"logits", "probabilities"} and all(0 < diff < 0.1 for diff in drift.values()), drift

    loaded = tf.saved_model.load(str(base / "sentiment" / "1"))
    classify = loaded.signatures["classify"]
    graph = classify.graph.as_graph_def()
    matmuls = [(node.op, node.attr["T"].type) for function in graph.library.function for node in function.node_def
               if "MatMul" in node.op]
    assert matmuls and {dtype for _, dtype in matmuls} == {tf.bfloat16.as_datatype_enum}

    texts = ["a fine film", "the plot was dull and far too long", "", "Héllo wörld, naïve café"]
    served = classify(text_a=tf.constant(texts))
    assert served["probabilities"].dtype == tf.float32
    reference = keras_bert.load_checkpoint(keras_file)  # the float32 model, with its text contract
    packed = reference.text_config.tokenizer()
    ids = keras_bert.text.Preprocessor(packed, 32, padding="longest").pack([packed.tokenize(tf.constant(texts))])
    want = tf.nn.softmax(reference(ids, training=False)).numpy()
    np.testing.assert_allclose(served["probabilities"].numpy(), want, atol=3e-2)
    assert [label.decode() for label in served["top_label"].numpy()] == [LABELS[i] for i in want.argmax(-1)]


def test_tool_refuses_bf16_without_a_savedmodel_and_unknown_precisions(keras_file, tmp_path):
    result = run_tool("export", keras_file, "--base_dir", tmp_path, "--formats", "onnx", "--precision", "bf16")
    assert result.returncode == 2
    assert "--precision bf16 sets the SavedModel's precision; add savedmodel to --formats" in result.stderr
    assert "Traceback" not in result.stderr
    result = run_tool("export", keras_file, "--base_dir", tmp_path, "--precision", "fp16")
    assert result.returncode == 2 and "--precision: invalid choice: 'fp16'" in result.stderr
    assert not os.listdir(tmp_path)



def test_api_refuses_bf16_without_a_savedmodel_before_writing(tmp_path):
    model = keras_bert.build_classifier(keras_bert.build_encoder(_tiny_config()), 3)
    with pytest.raises(ValueError, match=r"precision='bf16' sets the SavedModel's precision, but formats "
                                         r"\['onnx'\] has no 'savedmodel'"):
        keras_bert.export_model(model, "tiny", formats=("onnx",), base_dir=str(tmp_path), precision="bf16")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("flags, native", [("fpu avx2 avx512f", False), ("fpu avx512f avx512_bf16", True),
                                           ("fpu amx_bf16 amx_tile", True)])
def test_cpu_bf16_support_is_read_from_cpuinfo(tmp_path, flags, native):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n")
    assert cpu_runs_bf16_natively(str(cpuinfo)) is native
    assert cpu_runs_bf16_natively(str(tmp_path / "missing")) is None
