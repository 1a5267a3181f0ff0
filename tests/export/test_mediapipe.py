"""MediaPipe Tasks export: the real MiniLM run by MediaPipe's own TextClassifier / TextEmbedder from raw text.

References nobody here wrote: MediaPipe's C++ tokenizer and Tasks (the wheel), against our Keras model
(whose top label our SavedModel's `classify` serves, checked elsewhere), Hugging Face's `BertTokenizerFast`
from the checkpoint's tokenizer.json; texts: Shakespeare lines (the project's corpus) and the CJK texts of
CPython's own test suite (`test/cjkencodings/*-utf8.txt`).
"""

import glob
import os
import sysconfig
import zipfile

import numpy as np
import pytest

import keras_bert
from keras_bert.data.corpus import to_sentences
from keras_bert.export import export_model
from keras_bert.export.mediapipe import export_mediapipe
from keras_bert.export.mediapipe_check import probe_ids, run_mediapipe, write_probe
from tests.conftest import run_tool

pytest.importorskip("mediapipe")

SEQ_LENGTH = 64
LABELS = ["comedy", "history", "tragedy"]


def shakespeare_lines(files, count=200):
    """`count` sentences of 4+ words from the plays, spread over the files."""
    lines = []
    for path in files[::8]:
        with open(path, encoding="utf-8", errors="replace") as f:
            sentences = [s for s in to_sentences(f.read()) if len(s.split()) >= 4]
        lines += sentences[100:100 + count // len(files[::8]) + 1]
    return lines[:count]


def cjk_lines():
    """The distinct lines of CPython's test/cjkencodings/*-utf8.txt (Chinese, Japanese, Korean)."""
    folder = os.path.join(sysconfig.get_paths()["stdlib"], "test", "cjkencodings")
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "*-utf8.txt"))):
        with open(path, encoding="utf-8") as f:
            lines += [line.strip() for line in f if line.strip()]
    return list(dict.fromkeys(lines))


@pytest.fixture(scope="module")
def lines(shakespeare_files):
    return shakespeare_lines(shakespeare_files)


@pytest.fixture(scope="module")
def classifier_export(minilm_dir, tmp_path_factory):
    """The real MiniLM with a seeded 3-label head, saved as model.keras and exported for MediaPipe as
    users do; the Keras model (what our SavedModel's `classify` serves: test_saved_model.py, test_task_signatures.py)."""
    import keras

    work = tmp_path_factory.mktemp("mediapipe")
    keras.utils.set_random_seed(0)
    encoder = keras_bert.load_checkpoint(minilm_dir, model="encoder")
    model = keras_bert.build_classifier(encoder, num_classes=3, task_config={"labels": LABELS})
    keras_bert.save_checkpoint(model, work / "model.keras", format="keras")
    result = run_tool("export", work / "model.keras", "--formats", "mediapipe", "--seq_length", SEQ_LENGTH,
                      "--base_dir", work / "savedmodels")
    assert result.returncode == 0, result.stdout + result.stderr
    return work, result.stdout, model, encoder.text_config.tokenizer()


@pytest.mark.slow
def test_text_classifier_agrees_with_our_saved_model(classifier_export, lines, minilm_dir):
    import tensorflow as tf

    work, stdout, model, tokenizer = classifier_export
    tflite = work / "savedmodels" / "model" / "mediapipe" / "1" / "model.tflite"
    # MediaPipe's TextClassifier from raw text in a fresh process (as an app: no TensorFlow there), against
    # our top label: the Keras model on our tokenizer's ids (what our SavedModel's classify serves; exporting
    # the real MiniLM to a SavedModel only to read it back cost ~15 CPU-s).
    (scores,) = run_mediapipe([("classifier", tflite)], lines)
    with zipfile.ZipFile(tflite) as packed:  # the associated files MediaPipe read
        assert packed.read("labels.txt").decode("utf-8").split("\n") == LABELS
        with open(os.path.join(minilm_dir, "vocab.txt"), "rb") as vocab:
            assert packed.read("vocab.txt") == vocab.read()
    theirs = np.array(LABELS)[np.argmax(scores, -1)]
    ids = keras_bert.Preprocessor(tokenizer, SEQ_LENGTH)(tf.constant(lines))
    ours = np.array(LABELS)[np.argmax(model.predict({k: v.numpy() for k, v in ids.items()}, verbose=0), -1)]
    agreement = np.mean(ours == theirs)
    print(f"top label agreement on {len(lines)} Shakespeare lines: {agreement:.4f}")
    assert agreement >= 0.99
    # The export says that MediaPipe tokenizes on its own, and how it differed, there and in its README.
    assert "MediaPipe tokenizes with its own BertTokenizer, not the reference" in stdout
    assert "texts tokenize differently from the reference" in stdout
    readme = (tflite.parent / "README.md").read_text(encoding="utf-8")
    assert "lowercases ASCII letters only" in readme and "checked texts tokenize differently" in readme


@pytest.fixture(scope="module")
def embedder_and_probe(minilm_dir, lines, tmp_path_factory):
    """MiniLM as a TextEmbedder (the sentence embedder, task "embedding", where keras_bert has that task;
    else the encoder's pooled_output) and the ids probe, both run by MediaPipe in one fresh process."""
    from keras_bert.tasks import TASKS
    from keras_bert.tasks.registry import serving_for

    work = tmp_path_factory.mktemp("mediapipe_embedder")
    kind = "embedding" if "embedding" in TASKS else "encoder"
    model = keras_bert.load_checkpoint(minilm_dir, model=kind)
    tokenizer = keras_bert.load_checkpoint(minilm_dir, model="encoder").text_config.tokenizer()
    report = export_mediapipe(model, work, tokenizer, seq_length=SEQ_LENGTH, verify_export=False)
    write_probe(work / "probe.tflite", tokenizer.vocab_path, SEQ_LENGTH)
    texts = lines + cjk_lines()
    embeddings, packed = run_mediapipe([("embedder", report.extra["files"]["model"]),
                                        ("embedder", work / "probe.tflite")], texts)
    return model, serving_for(model).single_text_output[1], tokenizer, texts, embeddings[:len(lines)], probe_ids(packed)


@pytest.mark.slow
def test_text_embedder_equals_ours(embedder_and_probe, lines):
    import tensorflow as tf

    from keras_bert.export import ServingModule

    model, output, tokenizer, _, embeddings, _ = embedder_and_probe
    ids = keras_bert.Preprocessor(tokenizer, SEQ_LENGTH)(tf.constant(lines))
    ours = ServingModule(model, tokenizer, SEQ_LENGTH).serving.outputs_from_ids(ids)[output].numpy()
    cosine = np.sum(ours * embeddings, -1) / (np.linalg.norm(ours, axis=-1) * np.linalg.norm(embeddings, axis=-1))
    print(f"TextEmbedder vs our {output} on {len(lines)} lines: min cosine {cosine.min():.6f}")
    assert cosine.min() >= 0.999


def test_mediapipe_tokenizer_against_hugging_face(embedder_and_probe, minilm_dir, lines):
    """Where MediaPipe's packed ids differ from BertTokenizerFast's (the numbers README.md quotes)."""
    from transformers import BertTokenizerFast

    *_, texts, _, got = embedder_and_probe
    reference = BertTokenizerFast.from_pretrained(minilm_dir)
    want = reference(texts, max_length=SEQ_LENGTH, truncation=True, padding="max_length", return_tensors="np")
    differ = [i for i in range(len(texts)) if not np.array_equal(want["input_ids"][i], got["input_word_ids"][i])]
    english = [i for i in differ if i < len(lines)]
    truncated = sum(int(m.sum()) == SEQ_LENGTH for m in got["input_mask"][:len(lines)])
    print(f"Shakespeare: {len(english)} of {len(lines)} lines differ ({truncated} truncated at {SEQ_LENGTH}); "
          f"CJK: {len(differ) - len(english)} of {len(texts) - len(lines)} lines differ")
    kinds = {"Hangul": lambda c: "\uac00" <= c <= "\ud7a3", "CJK compatibility": lambda c: "\uf900" <= c <= "\ufaff",
             "accented Latin": lambda c: "\u00c0" <= c <= "\u024f" or "\u0300" <= c <= "\u036f"}
    for kind, has in kinds.items():
        print(f"  {kind}: {sum(any(map(has, texts[i])) for i in differ)} of the differing lines contain it")
    for i in differ[:8]:
        print(repr(texts[i][:50]), reference.convert_ids_to_tokens(want["input_ids"][i][:12]),
              reference.convert_ids_to_tokens(got["input_word_ids"][i][:12]))
    assert not english  # English text: the same ids, truncation included
    assert np.array_equal(got["input_type_ids"], np.zeros_like(got["input_type_ids"]))
    korean = [i for i in range(len(lines), len(texts)) if any("\uac00" <= c <= "\ud7a3" for c in texts[i])]
    # Hangul: the reference's NFD splits syllables into jamo, MediaPipe keeps them (both [UNK] a word
    # that has a character outside the vocabulary, so not every Korean line differs).
    assert len(set(korean) & set(differ)) >= 0.8 * len(korean)
    for i in differ:  # every difference is one of the documented kinds
        assert any(ord(c) > 127 or (ord(c) < 32 and c not in "\t\n\r") for c in texts[i]), texts[i]


@pytest.mark.parametrize("case", ["pair", "cased"])
def test_refused_before_anything_is_written(case, tiny_config, small_vocab, tmp_path):
    model = keras_bert.build_classifier(tiny_config, num_classes=2, task="pair_classification"
                                        if case == "pair" else "classification")
    tokenizer = keras_bert.Tokenizer(small_vocab, lower_case=case != "cased")
    with pytest.raises(ValueError) as error:
        export_model(model, "m", formats=["mediapipe"], tokenizer=tokenizer, base_dir=tmp_path)
    message = str(error.value)
    assert "\n" not in message and "--formats savedmodel,tflite,onnx" in message
    assert ("pair_classification" if case == "pair" else "cased") in message
    assert not os.path.exists(tmp_path / "m" / "mediapipe")
