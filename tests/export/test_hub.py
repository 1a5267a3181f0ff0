"""TF Hub reusable SavedModels: loaded with tf.saved_model and fine-tuned through tensorflow-hub + tf-keras."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from keras_bert.models.model_operations import find_encoder
from keras_bert.export import export_model
from keras_bert.export.hub import export_tfhub
from keras_bert.text.preprocessor import Preprocessor
from tests.export.helpers import randomize

SENTENCES = ["the quick brown fox jumps over the lazy dog", "hello world", "", "a b c d e f g h i j k"]
SEQ_LENGTH = 16


@pytest.fixture(scope="module")
def hub_export(tiny_config, tokenizer, tmp_path_factory):
    """A tiny classifier exported with `export_model(formats=["hub"])`: its encoder goes to TF Hub."""
    classifier = randomize(keras_bert.build_classifier(tiny_config, num_classes=2), seed=3)
    base = tmp_path_factory.mktemp("savedmodels")
    report = export_model(classifier, "tiny", formats=["hub"], tokenizer=tokenizer, base_dir=base,
                          seq_length=SEQ_LENGTH)["hub"]
    assert report.ok and len(report.rows) == 5, report.table()  # 3 preprocessor + 2 encoder outputs
    assert report.extra["encoder"] == str(base / "tiny" / "hub" / "1" / "encoder")
    return find_encoder(classifier), report.extra


def test_an_existing_export_is_not_replaced_silently(hub_export, tokenizer):
    encoder, paths = hub_export
    with pytest.raises(FileExistsError, match="overwrite"):
        export_tfhub(encoder, os.path.dirname(paths["encoder"]), tokenizer=tokenizer)


def test_encoder_is_callable_with_variables_and_dropout(hub_export, tokenizer):
    encoder, paths = hub_export
    hub_encoder = tf.saved_model.load(paths["encoder"])
    inputs = Preprocessor(tokenizer, SEQ_LENGTH)(tf.constant(SENTENCES))
    want, got = encoder(inputs), hub_encoder(inputs)
    assert set(got) == {"pooled_output", "sequence_output", "encoder_outputs", "default"}
    np.testing.assert_allclose(got["sequence_output"], want["sequence_output"], atol=1e-5)
    np.testing.assert_allclose(got["pooled_output"], want["pooled_output"], atol=1e-5)
    np.testing.assert_array_equal(got["default"], got["pooled_output"])
    assert len(got["encoder_outputs"]) == encoder.config.num_layers
    np.testing.assert_allclose(got["encoder_outputs"][0], want["encoder_outputs"][0], atol=1e-5)
    dropped = hub_encoder(inputs, training=True)["sequence_output"]
    assert np.max(np.abs(dropped - got["sequence_output"])) > 1e-3  # dropout is applied
    assert len(hub_encoder.trainable_variables) == len(encoder.trainable_variables)
    assert len(hub_encoder.variables) == len(encoder.variables)
    assert list(hub_encoder.regularization_losses) == []
    assert bool(hub_encoder.do_lower_case.numpy()) is True
    assert os.path.basename(hub_encoder.vocab_file.asset_path.numpy().decode()) == "vocab.txt"


def test_preprocessor_root_tokenize_and_pack_are_the_library_s(hub_export, tokenizer):
    preprocessor = tf.saved_model.load(hub_export[1]["preprocessor"])
    texts = tf.constant(SENTENCES)
    want = Preprocessor(tokenizer, SEQ_LENGTH)(texts)
    got = preprocessor(texts)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])
    words = preprocessor.tokenize(texts)
    assert words.to_list() == tokenizer.tokenize_words(texts).to_list()
    assert int(preprocessor.tokenize.get_special_tokens_dict()["start_of_sequence_id"]) == tokenizer.cls_id
    pair = [preprocessor.tokenize(texts), preprocessor.tokenize(tf.constant(SENTENCES[::-1]))]
    packed = preprocessor.bert_pack_inputs(pair, seq_length=9)
    expected = Preprocessor(tokenizer, 9).pack([s.merge_dims(1, 2) for s in pair])
    for name in expected:
        np.testing.assert_array_equal(packed[name], expected[name])
    default = preprocessor.bert_pack_inputs(pair[:1])  # seq_length defaults to the export's
    np.testing.assert_array_equal(default["input_word_ids"], want["input_word_ids"])
    assert bool(preprocessor.do_lower_case.numpy()) is True


# The consumer is the tf-keras world, as TF Hub users have it (TF_USE_LEGACY_KERAS=1).
_FINE_TUNE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow as tf
    import tensorflow_hub as hub
    import tensorflow_text  # noqa: F401  (registers the preprocessor's ops)

    preprocessor_dir, encoder_dir, expected_file, out_file = sys.argv[1:]
    tf.keras.utils.set_random_seed(0)  # the Dense head's init and the dropout masks: one run, one answer
    expected = np.load(expected_file)
    preprocess = hub.KerasLayer(preprocessor_dir)
    encoder = hub.KerasLayer(encoder_dir, trainable=True)
    sentences = tf.constant([s.decode() for s in expected["sentences"]])
    outputs = encoder(preprocess(sentences))
    diff = float(np.max(np.abs(outputs["pooled_output"].numpy() - expected["pooled_output"])))

    text = tf.keras.layers.Input(shape=(), dtype=tf.string)
    logits = tf.keras.layers.Dense(2)(encoder(preprocess(text))["pooled_output"])
    model = tf.keras.Model(text, logits)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    labels = tf.constant([0, 1, 0, 1])
    before = [v.numpy().copy() for v in encoder.trainable_weights]
    first = model.evaluate(sentences, labels, verbose=0)
    model.fit(sentences, labels, epochs=10, batch_size=4, verbose=0)
    last = model.evaluate(sentences, labels, verbose=0)
    changed = sum(not np.array_equal(b, v.numpy()) for b, v in zip(before, encoder.trainable_weights))
    json.dump({"diff": diff, "first": first, "last": last, "changed": changed,
               "trainable": len(encoder.trainable_weights)}, open(out_file, "w"))
""")


@pytest.mark.slow
def test_hub_keras_layer_fine_tunes_in_tf_keras(hub_export, tokenizer, tmp_path):
    pytest.importorskip("tensorflow_hub")
    pytest.importorskip("tf_keras")
    encoder, paths = hub_export
    sentences = SENTENCES
    pooled = encoder(Preprocessor(tokenizer, SEQ_LENGTH)(tf.constant(sentences)))["pooled_output"]
    np.savez(tmp_path / "expected.npz", sentences=np.array([s.encode() for s in sentences]),
             pooled_output=np.asarray(pooled))
    script = tmp_path / "fine_tune.py"
    script.write_text(_FINE_TUNE)
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2")
    result = subprocess.run(
        [sys.executable, str(script), paths["preprocessor"], paths["encoder"],
         str(tmp_path / "expected.npz"), str(tmp_path / "out.json")],
        capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((tmp_path / "out.json").read_text())
    print(report)  # measured: diff 6.7e-7, loss 0.710 -> 0.48-0.55 in 10 epochs (seed 0; threads vary it), 39/39 weights changed
    assert report["diff"] < 1e-5  # hub.KerasLayer reproduces the Keras encoder
    assert report["trainable"] == len(encoder.trainable_variables)
    assert report["changed"] == report["trainable"]  # every encoder weight was fine-tuned
    assert report["last"] < report["first"]
