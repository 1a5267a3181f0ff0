"""Round three of bad input on the text, checkpoint and export side (issue 30): each row was silently wrong
or unclear before; now it is equal to the reference or refused in one line naming the file, field or flag."""

import json
import re
import os
import warnings

import numpy as np
import pytest

import keras_bert
from keras_bert.models.builders import build_embedder
from tests.reliability.conftest import assert_api_error, real_vocab_file

BATCH = {"input_word_ids": np.array([[2, 50, 60, 70, 3, 0]], "int32"),
         "input_mask": np.array([[1, 1, 1, 1, 1, 0]], "int32"), "input_type_ids": np.zeros((1, 6), "int32")}


@pytest.fixture(scope="module")
def spaced_vocab_dir(tmp_path_factory):
    """The real uncased vocab with [unused5] renamed `new york` (a token holding a space)."""
    with open(real_vocab_file(), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:-1]
    vocab[vocab.index("[unused5]")] = "new york"
    folder = tmp_path_factory.mktemp("spaced_vocab")
    (folder / "vocab.txt").write_text("".join(t + "\n" for t in vocab), encoding="utf-8")
    return folder


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_a_vocab_token_with_a_space_tokenizes_as_the_reference(spaced_vocab_dir, normalization):
    """Before: `new york` matched as one token (id 6) across the space. After: the reference's ids."""
    from transformers import BertTokenizerFast

    reference = BertTokenizerFast.from_pretrained(str(spaced_vocab_dir))
    tokenizer = keras_bert.Tokenizer(spaced_vocab_dir / "vocab.txt", normalization=normalization)
    texts = ["new york is big", "I love new york!", "new\tyork", "new\u00a0york", "N\u00e9w York"]
    ours = tokenizer.tokenize(texts).to_list()
    assert ours == [reference(t, add_special_tokens=False)["input_ids"] for t in texts]
    assert 6 not in sum(ours, [])
    assert tokenizer.detokenize([2047, 6, 2259]).numpy().decode() == reference.decode([2047, 6, 2259])


def tiny_embedder(tiny_checkpoint):
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    embedder = build_embedder(encoder, pooling="cls", normalize=True, task_config={"seq_length": 32})
    embedder.text_config = encoder.text_config
    return embedder


def test_an_embedding_model_saved_as_huggingface_keeps_its_pooling(tiny_checkpoint, tmp_path):
    """Before: a bare BERT folder (loads as an encoder; model="embedding" pooled by mean, outputs differed).
    After: a Hugging Face folder that is also a sentence-transformers folder: the same embedder loads back."""
    embedder = tiny_embedder(tiny_checkpoint)
    keras_bert.save_checkpoint(embedder, tmp_path / "hf", format="huggingface")
    assert {"config.json", "model.safetensors", "modules.json"} <= set(os.listdir(tmp_path / "hf"))
    for model in (None, "embedding"):
        reloaded = keras_bert.load_checkpoint(tmp_path / "hf", model=model)
        assert reloaded.task == "embedding" and reloaded.task_config == embedder.task_config
        np.testing.assert_allclose(reloaded(BATCH), embedder(BATCH), atol=1e-6)


def test_an_embedding_model_saved_as_google_warns_that_its_pooling_is_dropped(tiny_checkpoint, tmp_path):
    """Before: no word. After: a warning naming the pooling and format='st'."""
    with pytest.warns(UserWarning, match=r"its pooling \(cls, normalize=True\) .* format='st'"):
        keras_bert.save_checkpoint(tiny_embedder(tiny_checkpoint), tmp_path / "g", format="google")


def test_a_bert_written_over_a_sentence_transformers_folder_loads_as_itself(tiny_checkpoint, tmp_path):
    """Before: modules.json and 1_Pooling stayed, so the new encoder loaded with the old folder's pooling
    as an embedder. After: they are removed with the other old checkpoint files."""
    keras_bert.save_checkpoint(tiny_embedder(tiny_checkpoint), tmp_path / "f", format="st")
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    keras_bert.save_checkpoint(encoder, tmp_path / "f", format="huggingface")
    assert "modules.json" not in os.listdir(tmp_path / "f")
    assert isinstance(keras_bert.load_checkpoint(tmp_path / "f"), keras_bert.BertEncoder)


@pytest.fixture(scope="module")
def tiny_hub(tiny_checkpoint, tmp_path_factory):
    """The tiny encoder (64 positions) exported as TF Hub encoder + preprocessor, reloaded."""
    import tensorflow as tf

    from keras_bert.export.hub import export_tfhub

    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    folder = tmp_path_factory.mktemp("hub")
    export_tfhub(encoder, folder, encoder.text_config.tokenizer(), seq_length=16, verify_export=False)
    preprocessor, hub_encoder = (tf.saved_model.load(str(folder / name)) for name in ("preprocessor", "encoder"))
    pair = [preprocessor.tokenize(tf.constant([text])) for text in ("the king is dead", "long live the king")]
    return preprocessor, hub_encoder, pair


@pytest.mark.parametrize("segments, seq_length, fragment", [
    (2, 2, "seq_length] [2] [leaves no room for the text of [CLS] A [SEP] B [SEP]; pass seq_length >= 5"),
    (1, 2, "seq_length] [2] [leaves no room for the text of [CLS] A [SEP]; pass seq_length >= 3"),
    (2, 200, "seq_length] [200] [is more than the encoder maximum of 64 positions"),
])
def test_tf_hub_bert_pack_inputs_refuses_a_seq_length_that_drops_the_texts_or_overflows(
        tiny_hub, segments, seq_length, fragment):
    """Before: seq_length=2 packed a pair as [CLS] [SEP] (both texts gone); 200 packed, then the encoder
    failed with a raw shape error. After: one assertion naming seq_length and the limit."""
    import tensorflow as tf

    preprocessor, _, pair = tiny_hub
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(fragment)):
        preprocessor.bert_pack_inputs(pair[:segments], seq_length=seq_length)
    assert preprocessor.bert_pack_inputs(pair[:segments], seq_length=2 * segments + 1)["input_mask"].shape[1] > 0


def test_tf_hub_encoder_refuses_inputs_longer_than_its_positions(tiny_hub):
    """Before: `Dimensions must be equal, but are 200 and 64` from inside the embeddings. After: one line."""
    import tensorflow as tf

    _, hub_encoder, _ = tiny_hub
    inputs = {name: tf.ones((1, 100), tf.int32) for name in ("input_word_ids", "input_mask", "input_type_ids")}
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"have\] \[100\] \[positions .* maximum of 64"):
        hub_encoder(inputs)
    assert hub_encoder({k: v[:, :64] for k, v in inputs.items()})["pooled_output"].shape == (1, 16)


def test_tf_hub_preprocessor_longer_than_the_encoder_is_refused_at_export():
    from keras_bert.export.hub import HubPreprocessor

    assert_api_error(lambda: HubPreprocessor(None, seq_length=200, max_seq_length=64), ValueError,
                     "seq_length=200", "maximum of 64 positions")


@pytest.fixture(scope="module")
def st_folder(tiny_checkpoint, tmp_path_factory):
    folder = tmp_path_factory.mktemp("st")
    keras_bert.save_checkpoint(tiny_embedder(tiny_checkpoint), folder, format="st")
    return folder


def corrupted(st_folder, tmp_path, name, change):
    """A copy of `st_folder` whose JSON file `name` is replaced by `change(its content)`."""
    import shutil

    folder = tmp_path / "corrupt"
    shutil.copytree(st_folder, folder)
    path = folder / name
    path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")
    return folder, str(path)


# (case, file, change, message fragments); before each raised a raw TypeError/AttributeError or loaded.
ST_CASES = [
    ("pooling_mode a number", "1_Pooling/config.json", lambda c: {"pooling_mode": 1},
     ["pooling_mode is 1; expected a mode name"]),
    ("pooling config a list", "1_Pooling/config.json", lambda c: [c], ["holds a JSON list; expected an object"]),
    ("modules.json an object", "modules.json", lambda m: {str(i): x for i, x in enumerate(m)},
     ["holds a JSON dict; expected a list of modules"]),
    ("module path a number", "modules.json", lambda m: [dict(m[0], path=0)] + m[1:],
     ["module 0 has path=0; expected an object whose type and path are strings"]),
    ("word_embedding_dimension a string", "1_Pooling/config.json",
     lambda c: dict(c, word_embedding_dimension="16"), ["word_embedding_dimension '16' but"]),
    ("max_seq_length beyond the positions", "sentence_bert_config.json", lambda c: dict(c, max_seq_length=512),
     ["max_seq_length is 512, more than the model's 64 positions", "set it to 64 or less"]),
    ("max_seq_length not a number", "sentence_bert_config.json", lambda c: dict(c, max_seq_length="long"),
     ["max_seq_length is 'long'; expected a whole number"]),
]


@pytest.mark.parametrize("case, name, change, fragments", ST_CASES, ids=[c[0] for c in ST_CASES])
def test_a_broken_sentence_transformers_folder_is_one_line_naming_the_file(st_folder, tmp_path, case, name,
                                                                           change, fragments):
    folder, path = corrupted(st_folder, tmp_path, name, change)
    assert_api_error(lambda: keras_bert.load_checkpoint(folder), ValueError, path, *fragments)


def test_a_text_contract_longer_than_the_positions_is_refused_at_load(tiny_checkpoint, tmp_path):
    """Before: text_config.json's max_seq_length 512 on a 64-position model loaded, and failed at the first
    long text. After: refused at load naming the file, the value and the maximum."""
    import shutil

    folder = tmp_path / "ckpt"
    shutil.copytree(tiny_checkpoint, folder)
    contract = json.loads((folder / "text_config.json").read_text(encoding="utf-8"))
    (folder / "text_config.json").write_text(json.dumps(dict(contract, max_seq_length=512)), encoding="utf-8")
    assert_api_error(lambda: keras_bert.load_checkpoint(folder), ValueError, str(folder / "text_config.json"),
                     "max_seq_length is 512, more than the model's 64 positions")


def test_the_answer_signature_refuses_two_questions_for_one_context(tiny_checkpoint, tmp_path):
    """Before: a raw broadcast error from deep in the graph naming neither input. After: one assertion
    naming `question`, `context` and their lengths (the exported SavedModel, reloaded)."""
    import tensorflow as tf

    from keras_bert.export import export_saved_model

    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    export_saved_model(keras_bert.build_span_labeler(encoder), tmp_path / "squad" / "1",
                       tokenizer=encoder.text_config.tokenizer(), seq_length=32, verify_export=False)
    answer = tf.saved_model.load(str(tmp_path / "squad" / "1")).signatures["answer"]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"question has\] \[2\] \[texts and context has\] \[1\] \[texts; pass one context"):
        answer(question=tf.constant(["who?", "what?"]), context=tf.constant(["the king is dead ."]))
    assert answer(question=tf.constant(["who?"]), context=tf.constant(["the king ."]))["start_char"].shape == (1,)


def test_ctrl_c_while_an_export_converts_to_tflite_exits_130_and_leaves_no_version(tiny_classifier, tmp_path):
    """SIGINT a second after the staged tflite/ folder appears (savedmodel already written there): exit 130
    with one line, no <name>/<version> of any format, no staging folder, no models.config entry."""
    import glob
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT, sigint_as_in_a_terminal

    base = tmp_path / "savedmodels"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    export = subprocess.Popen([sys.executable, os.path.join("tools", "export.py"), tiny_classifier, "--base_dir",
                               str(base), "--name", "clf", "--formats", "savedmodel,tflite", "--seq_length", "16"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=sigint_as_in_a_terminal)
    deadline = time.time() + 600
    while not glob.glob(str(base / "clf" / ".tmp-*" / "tflite")) and export.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    assert export.poll() is None, "the export ended before its tflite phase"
    time.sleep(1)
    export.send_signal(signal.SIGINT)
    _, err = export.communicate(timeout=600)
    assert export.returncode == 130, err[-3000:]
    assert [line for line in err.splitlines() if line.strip()] == [
        "export.py: interrupted; the version being written was removed; run the command again."], err[-3000:]
    assert os.listdir(base / "clf") == []
    assert not os.path.exists(base / "models.config")


@pytest.fixture(scope="module")
def hf_classifier_folder(tiny_checkpoint, tmp_path_factory):
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    folder = tmp_path_factory.mktemp("hf_classifier")
    keras_bert.save_checkpoint(keras_bert.build_classifier(encoder, 2, task_config={"labels": ["neg", "pos"]}),
                               folder, format="huggingface")
    return folder


# (case, config.json change, fragment); before: a string `architectures` loaded the classifier as a bare encoder
# (head dropped with a warning), the others raised raw TypeError / AttributeError / `invalid literal for int()`.
HF_CASES = [
    ("architectures a string", lambda c: dict(c, architectures="BertForSequenceClassification"),
     "architectures is 'BertForSequenceClassification'; expected a list of class names"),
    ("keras_bert_task a string", lambda c: dict(c, keras_bert_task="classification"),
     "keras_bert_task is 'classification'; expected an object"),
    ("classifier_dropout a string", lambda c: dict(c, classifier_dropout="0.1"),
     "classifier_dropout is '0.1'; expected a number in [0, 1) or null"),
    ("num_labels a word", lambda c: dict({k: v for k, v in c.items() if k not in ("id2label", "label2id",
                                                                                  "keras_bert_task")},
                                         num_labels="three"), "num_labels is 'three'; expected a whole number"),
]


@pytest.mark.parametrize("case, change, fragment", HF_CASES, ids=[c[0] for c in HF_CASES])
def test_a_hugging_face_task_folder_with_a_mistyped_field_is_one_line(hf_classifier_folder, tmp_path, case,
                                                                      change, fragment):
    folder, path = corrupted(hf_classifier_folder, tmp_path, "config.json", change)
    assert_api_error(lambda: keras_bert.load_checkpoint(folder), ValueError, path, fragment)


def test_a_label_with_a_line_break_is_refused_before_a_mediapipe_export(tiny_classifier, tmp_path):
    """Before: the label went into labels.txt as two lines (every later label shifted) and only MediaPipe's
    own load check caught it, with a traceback. After: refused before anything is written, in one line."""
    from tests.reliability.conftest import assert_one_line_error, run_subprocess

    result = run_subprocess("export", [tiny_classifier, "--base_dir", tmp_path, "--formats", "mediapipe",
                                       "--labels", "neg\nnews,pos"])
    assert result.returncode == 2, result.stderr[-3000:]
    # the one label-name rule (keras_bert/text/label_names.py) refuses it, for every format
    assert_one_line_error(result.stderr, "'neg\\nnews'", "control character", "labels.txt")
    assert not os.path.exists(tmp_path / "model")
