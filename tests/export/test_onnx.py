"""ONNX export of a tiny encoder: parity before/after ORT's optimizer, fusions, dynamic shapes."""

import numpy as np
import onnx as onnx_lib
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.export import OnnxConversionError, ServingModule, export_onnx, rewrite_for_ort_fusion
from keras_bert.export.onnx import check_onnx, check_ops
from tests.export.helpers import randomize


@pytest.fixture(scope="module")
def encoder(tiny_config):
    return randomize(keras_bert.build_encoder(tiny_config), seed=2)


@pytest.fixture(scope="module")
def onnx_export(encoder, tokenizer, tmp_path_factory):
    return export_onnx(encoder, tmp_path_factory.mktemp("onnx"), tokenizer=tokenizer)


def test_parity_before_and_after_the_optimizer(onnx_export):
    assert onnx_export.ok, onnx_export.table()
    labels = {row.artifact for row in onnx_export.rows}
    assert labels == {"onnx", "onnx_optimized", "onnx_text"}
    assert max(row.max_abs_diff for row in onnx_export.rows if row.output != "ids == Tokenizer") <= 1e-4


def test_optimizer_fuses_every_bert_block(onnx_export, tiny_config):
    fused = onnx_export.extra["fused_ops"]
    layers = tiny_config.num_layers
    assert fused["Attention"] == layers
    assert fused["SkipLayerNormalization"] == 2 * layers
    assert fused["BiasGelu"] == layers
    assert fused["EmbedLayerNormalization"] == 1
    optimized = onnx_lib.load(onnx_export.extra["files"]["onnx_optimized"])
    ops = {node.op_type for node in optimized.graph.node}
    assert not ops & {"Softmax", "Erf", "LayerNormalization", "ReduceMean"}  # all inside fused ops


def test_inputs_are_int32_with_dynamic_batch_and_sequence(onnx_export):
    model = onnx_lib.load(onnx_export.extra["files"]["onnx"])
    assert model.opset_import[0].version >= 17
    for value in model.graph.input:
        assert value.type.tensor_type.elem_type == onnx_lib.TensorProto.INT32
        assert [d.dim_param for d in value.type.tensor_type.shape.dim] == ["batch", "sequence"]
    assert sorted(o.name for o in model.graph.output) == ["pooled_output", "sequence_output"]


def test_dynamic_shapes_batch_1_to_16_seq_8_to_512(onnx_export, encoder, tokenizer):
    rng = np.random.default_rng(0)
    batches = []
    for batch, seq in ((1, 8), (16, 512), (3, 77)):
        ids = rng.integers(1000, tokenizer.vocab_size, (batch, seq)).astype(np.int32)
        lengths = rng.integers(2, seq + 1, batch)
        mask = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.int32)
        batches.append({"input_word_ids": ids * mask, "input_mask": mask,
                        "input_type_ids": (np.arange(seq)[None, :] >= lengths[:, None] // 2).astype(np.int32) * mask})
    rows = check_onnx(ServingModule(encoder).serving, onnx_export.extra["files"], id_batches=batches)
    assert all(row.ok for row in rows), "\n".join(str(r) for r in rows if not r.ok)
    assert {row.signature for row in rows} == {"ids[1x8]", "ids[16x512]", "ids[3x77]"}


def test_unconvertible_tf_op_is_a_failure_not_a_silent_success():
    import tf2onnx

    function = tf.function(lambda x: tf.math.erfc(x), input_signature=[tf.TensorSpec([None], tf.float32)])
    proto, _ = tf2onnx.convert.from_function(function, input_signature=[tf.TensorSpec([None], tf.float32)],
                                             opset=17)  # "succeeds"
    with pytest.raises(OnnxConversionError, match="Erfc"):
        check_ops(proto)


def test_old_opset_and_existing_files_are_refused(encoder, onnx_export):
    with pytest.raises(ValueError, match="opset >= 17"):
        export_onnx(encoder, onnx_export.path + "_old", opset=13)
    with pytest.raises(FileExistsError, match="overwrite"):
        export_onnx(encoder, onnx_export.path)


def test_without_the_rewrites_ort_fuses_no_attention(encoder, tmp_path):
    # The reason onnx_rewrites.py exists: if this starts failing, ONNX Runtime matches
    # tf2onnx's graph on its own and the rewrites can go (tools/bench_onnx_fusion.py).
    report = export_onnx(encoder, tmp_path, verify_export=False, rewrites=())
    assert report.extra["rewrites"] == {}
    assert report.extra["fused_ops"]["Attention"] == 0
    assert report.extra["fused_ops"]["EmbedLayerNormalization"] == 0
    with pytest.raises(ValueError, match="Unknown ONNX rewrite"):
        rewrite_for_ort_fusion(onnx_lib.ModelProto(), ("layernorm",))


def test_a_modernbert_classifier_exports_and_verifies_without_token_types(tmp_path):
    """A ModernBERT reads no token types, and an ONNX file it exports may not declare input_type_ids:
    the verifier feeds what the session declares (it fed input_type_ids and onnxruntime refused,
    'Invalid input name'). Its exact GELU is Erf (Keras's own gelu would be Erfc, which tf2onnx
    cannot convert)."""
    import onnx

    import keras_bert
    from keras_bert.export import export_model
    from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

    config = ModernBertConfig(vocab_size=100, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=16,
                              max_position_embeddings=32, local_attention=4, pad_token_id=0)
    model = keras_bert.build_classifier(ModernBertEncoder(config), 2)
    report = export_model(model, "mb", formats=["onnx"], base_dir=str(tmp_path), seq_length=16)["onnx"]
    assert report.ok, report.table()
    graph = onnx.load(report.extra["files"]["onnx"]).graph
    ops = {node.op_type for node in graph.node}
    assert "Erf" in ops and "Erfc" not in ops
