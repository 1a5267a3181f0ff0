"""SavedModel export: both signatures against Keras, hermetic loading, and the bad inputs."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

from keras_bert.export import ParityError, ServingModule, export_saved_model
from keras_bert.export.verify_reference import SAMPLE_TEXTS, keras_outputs, text_to_ids


def test_both_signatures_match_keras_in_a_fresh_process(classifier_export):
    assert classifier_export.ok, classifier_export.table()
    signatures = {row.signature for row in classifier_export.rows}
    assert {"serve_ids", "serving_default[text_a]", "serving_default[text_a+text_b]"} <= signatures
    logits = [row for row in classifier_export.rows if row.output == "logits"]
    assert len(logits) == 3 and max(row.max_abs_diff for row in logits) <= 1e-5
    # The parity inputs include an empty string and a text far longer than seq_length.
    assert "" in SAMPLE_TEXTS and max(len(t.split()) for t in SAMPLE_TEXTS) > 100


def test_loads_with_only_tensorflow_and_tensorflow_text(classifier_export, tiny_classifier, tokenizer, tmp_path):
    texts = ["A fine, moving film.", "", "word " * 400]
    script = textwrap.dedent(f"""
        import json, sys
        import tensorflow as tf
        import tensorflow_text  # noqa: F401
        loaded = tf.saved_model.load({classifier_export.path!r})
        text = loaded.signatures["serving_default"](text_a=tf.constant({texts!r}),
                                                    text_b=tf.constant([], tf.string))
        ids = json.load(open({str(tmp_path / "ids.json")!r}))
        by_ids = loaded.signatures["serve_ids"](**{{k: tf.constant(v, tf.int32) for k, v in ids.items()}})
        print(json.dumps({{"text": text["logits"].numpy().tolist(), "ids": by_ids["logits"].numpy().tolist(),
                          "keras_bert": any(m.startswith("keras_bert") for m in sys.modules)}}))
    """)
    module = ServingModule(tiny_classifier, tokenizer, seq_length=32)
    ids = text_to_ids(module.serving, texts)
    (tmp_path / "ids.json").write_text(json.dumps({k: v.tolist() for k, v in ids.items()}))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not result["keras_bert"]
    expected = keras_outputs(module.serving, ids)["logits"]
    np.testing.assert_allclose(result["text"], expected, atol=1e-5)
    np.testing.assert_allclose(result["ids"], expected, atol=1e-5)


def test_vocab_is_an_asset_and_text_b_has_a_default(classifier_export, small_vocab):
    with open(os.path.join(classifier_export.path, "assets", "vocab.txt"), "rb") as f:
        assert f.read() == open(small_vocab, "rb").read()
    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(classifier_export.path, "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    (graph,) = proto.meta_graphs
    assert list(graph.meta_info_def.tags) == ["serve"]
    signature = graph.signature_def["serving_default"]
    assert set(signature.inputs) == {"text_a", "text_b"}
    assert set(signature.defaults) == {"text_b"}  # TF Serving fills in an omitted text_b
    assert set(graph.signature_def["serve_ids"].inputs) == {"input_word_ids", "input_mask", "input_type_ids"}
    assert set(signature.outputs) == {"logits", "probabilities"}


@pytest.fixture(scope="module")
def loaded(classifier_export):
    return tf.saved_model.load(classifier_export.path)


def test_wrong_dtype_is_a_clear_error(loaded):
    ids = tf.constant([[101, 2000, 102]])
    floats = {"input_word_ids": tf.cast(ids, tf.float32), "input_mask": ids, "input_type_ids": 0 * ids}
    # The signature (what TF Serving and saved_model_cli call) names the expected and given dtype.
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a int32 tensor but is a float"):
        loaded.signatures["serve_ids"](**floats)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32"):
        loaded.signatures["serving_default"](text_a=tf.constant([1, 2]), text_b=tf.constant([], tf.string))
    # The restored function also names the input.
    with pytest.raises(TypeError, match=r"float32, name='input_word_ids'\) to TensorSpec\(.*int32"):
        loaded.serve_ids(floats)


def test_empty_and_overlong_text_are_packed_and_truncated(loaded, tiny_classifier, tokenizer):
    texts = ["", " ".join(["the"] * 5000)]
    out = loaded.signatures["serving_default"](text_a=tf.constant(texts), text_b=tf.constant([], tf.string))
    ids = text_to_ids(ServingModule(tiny_classifier, tokenizer, seq_length=32).serving, texts)
    assert list(ids["input_mask"].sum(axis=1)) == [2, 32]  # [CLS] [SEP]; truncated to seq_length
    expected = keras_outputs(ServingModule(tiny_classifier, tokenizer, seq_length=32).serving, ids)["logits"]
    np.testing.assert_allclose(out["logits"].numpy(), expected, atol=1e-5)


def test_text_b_must_match_text_a(loaded):
    with pytest.raises(tf.errors.InvalidArgumentError, match="text_b must hold one string per text_a"):
        loaded.signatures["serving_default"](text_a=tf.constant(["a", "b"]), text_b=tf.constant(["c"]))


def test_too_long_ids_are_a_clear_error(loaded):
    ids = tf.ones([1, 600], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="max_position_embeddings=512"):
        loaded.signatures["serve_ids"](input_word_ids=ids, input_mask=ids, input_type_ids=0 * ids)


def test_existing_version_is_refused_unless_overwrite(classifier_export, tiny_classifier, tokenizer, tmp_path):
    with pytest.raises(FileExistsError, match="already exists.*overwrite"):
        export_saved_model(tiny_classifier, classifier_export.path, tokenizer=tokenizer, seq_length=32)
    with pytest.raises(ValueError, match="numeric version"):
        export_saved_model(tiny_classifier, tmp_path / "tiny" / "latest", tokenizer=tokenizer)
    target = tmp_path / "tiny" / "3"
    target.mkdir(parents=True)
    (target / "stale.txt").write_text("old")
    export_saved_model(tiny_classifier, target, overwrite=True, verify_export=False)
    assert sorted(os.listdir(target)) == ["assets", "fingerprint.pb", "saved_model.pb", "variables"]
    assert os.listdir(tmp_path / "tiny") == ["3"]  # no staging folder left behind


def test_parity_failure_is_loud(classifier_export):
    from keras_bert.export.verify import ExportReport, ParityRow

    report = ExportReport(classifier_export.path, rows=list(classifier_export.rows))
    report.rows.append(ParityRow("savedmodel", "serve_ids", "logits", max_abs_diff=3e-3, tolerance=1e-5, ok=False))
    with pytest.raises(ParityError, match=r"(?s)does not match the Keras model:.*logits\s+3.00e-03.*FAIL"):
        report.raise_if_failed()
