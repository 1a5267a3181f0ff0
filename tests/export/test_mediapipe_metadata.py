"""export/mediapipe_metadata.py: MediaPipe's metadata and the vocabulary (and labels) packed into a TFLite file."""

import io
import zipfile

import pytest
import tensorflow as tf

from keras_bert.export.mediapipe_metadata import LABELS_FILE, VOCAB_FILE, with_metadata
from keras_bert.export.serving_checks import ID_INPUTS


def _tflite(names=ID_INPUTS, outputs=2):
    spec = {name: tf.TensorSpec([1, 8], tf.int32, name=name) for name in names}
    function = tf.function(lambda inputs: {"probabilities": tf.nn.softmax(tf.cast(
        tf.concat([inputs[n] for n in names], -1)[:, :outputs], tf.float32))}, input_signature=[spec])
    return tf.lite.TFLiteConverter.from_concrete_functions([function.get_concrete_function()], tf.Module()).convert()


def test_a_classifier_packs_its_vocabulary_labels_and_metadata(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n", encoding="utf-8")
    content = _tflite()
    packed = with_metadata(content, "classifier", "probabilities", str(vocab), labels=["neg", "pos"])
    assert packed.startswith(content[:8]) and b"TFLITE_METADATA" in packed and b"TextClassifier" in packed
    with zipfile.ZipFile(io.BytesIO(packed)) as archive:
        assert archive.read(VOCAB_FILE) == vocab.read_bytes()
        assert archive.read(LABELS_FILE) == b"neg\npos"
    interpreter = tf.lite.Interpreter(model_content=packed)  # still a runnable TFLite model
    assert len(interpreter.get_input_details()) == 3


def test_an_embedder_packs_no_labels(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n", encoding="utf-8")
    packed = with_metadata(_tflite(), "embedder", "pooled_output", str(vocab))
    with zipfile.ZipFile(io.BytesIO(packed)) as archive:
        assert archive.namelist() == [VOCAB_FILE]
    assert b"TextEmbedder" in packed


def test_a_model_without_the_three_id_inputs_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"A MediaPipe BERT model takes the inputs \['input_word_ids'"):
        with_metadata(_tflite(names=("input_word_ids", "input_mask")), "embedder", "x", str(tmp_path / "v"))
