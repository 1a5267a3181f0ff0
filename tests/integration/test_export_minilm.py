"""The real MiniLM-L6 checkpoint, with a classifier head trained on a real task, exported to TFLite
(float16 / int8), each checked against Keras on held-out text: quantization error on a real
fine-tuned model's confident logits, which no tiny model shows. The suite's one int8 and float16 files of
the real MiniLM (tests/tasks/test_embedding.py exports its float32 only). Its float32 TFLite is checked
there (text model, equal to sentence-transformers at 1e-5), a classifier's float32 ids model on a tiny one
(tests/export/test_tflite.py::test_float32_and_text_model_match_keras, 1e-4).

The other formats of the real MiniLM are exported elsewhere: SavedModel by `tools/export.py` on its folder
(tests/tasks/test_embedding.py: `embed` equals sentence-transformers, and the tool's fresh-process parity
with Keras), ONNX (same file, test_onnx_equals_sentence_transformers). A classifier's SavedModel and ONNX
(with ONNX Runtime's optimizer) are checked against Keras on tiny models: tests/export/test_saved_model.py,
tests/integration/test_export_tool.py (savedmodel,onnx with onnx_optimized), and the classifier's fused ops
(its last layer [CLS]-only) in tests/tasks/test_task_signatures.py::test_classify_returns_label_names_and_top_label.

Task: tell a line of Shakespeare from a sentence of Python's standard-library documentation.
Train and held-out lines come from different plays and different modules.
"""

import importlib
import inspect
import os
import re
import time

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.export import export_tflite

pytestmark = pytest.mark.slow
TRAIN_PLAYS = ("hamlet", "macbeth", "othello", "tempest", "julius_caesar", "coriolanus")
HELD_OUT_PLAYS = ("lear", "cymbeline", "henry_v", "twelfth_night")
TRAIN_MODULES = ("os", "json", "subprocess", "argparse", "logging", "shutil", "tarfile", "threading")
HELD_OUT_MODULES = ("collections", "pathlib", "zipfile", "csv", "textwrap", "email.message", "http.client",
                    "unittest", "calendar", "decimal", "socket", "sqlite3", "xml.dom.minidom", "pickle")


def play_lines(files, plays, per_play, seed):
    """Random lines of 7-16 words from the modern-spelling texts of `plays`."""
    rng = np.random.default_rng(seed)
    by_name = {os.path.basename(f): f for f in files}
    lines = []
    for play in plays:
        with open(by_name[f"{play}_gut.txt"], encoding="utf-8", errors="replace") as f:
            candidates = [" ".join(line.split()) for line in f
                          if 7 <= len(line.split()) <= 16 and not line.strip().isupper()]
        lines += list(rng.choice(candidates, per_play, replace=False))
    return lines


def doc_sentences(modules, count, seed):
    """Random prose sentences of 7-16 words from the docstrings of stdlib `modules`."""
    sentences = set()
    for name in modules:
        module = importlib.import_module(name)
        docs = [inspect.getdoc(module)] + [inspect.getdoc(getattr(module, a)) for a in sorted(dir(module))
                                           if not a.startswith("_")]
        for doc in filter(None, docs):
            for sentence in re.split(r"(?<=[.!?])\s+", " ".join(doc.split())):
                if 7 <= len(sentence.split()) <= 16 and not re.search(r"[=(){}\[\]<>`*_\\]", sentence):
                    sentences.add(sentence)
    sentences = sorted(sentences)
    return list(np.random.default_rng(seed).choice(sentences, min(count, len(sentences)), replace=False))


@pytest.fixture(scope="module")
def task(shakespeare_files):
    train = [(t, 1) for t in play_lines(shakespeare_files, TRAIN_PLAYS, 30, 0)]
    train += [(t, 0) for t in doc_sentences(TRAIN_MODULES, 180, 1)]
    held_out = [(t, 1) for t in play_lines(shakespeare_files, HELD_OUT_PLAYS, 60, 2)]
    held_out += [(t, 0) for t in doc_sentences(HELD_OUT_MODULES, 240, 3)]
    return train, held_out


@pytest.fixture(scope="module")
def minilm_classifier(minilm_dir, task):
    """MiniLM-L6 fine-tuned end to end (1 epoch of 360 lines: 12 steps) as a 2-way classifier.

    Fine-tuning the whole model (not just a head on frozen features) gives the confident
    logits a real fine-tuned classifier has, so int8 agreement measures quantization error
    rather than how many held-out lines sit on the decision boundary.
    """
    keras.utils.set_random_seed(0)
    encoder = keras_bert.load_checkpoint(minilm_dir, model="encoder")
    tokenizer = keras_bert.Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    preprocessor = keras_bert.Preprocessor(tokenizer, seq_length=48)
    train, _ = task
    inputs = {k: v.numpy() for k, v in preprocessor(np.array([t for t, _ in train])).items()}
    labels = np.array([y for _, y in train])
    classifier = keras_bert.build_classifier(encoder, num_classes=2)
    classifier.compile(keras.optimizers.AdamW(5e-5), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                       metrics=["accuracy"])
    classifier.fit(inputs, labels, epochs=1, batch_size=32, shuffle=True, verbose=0)
    return classifier, tokenizer


def test_minilm_classifier_converts_to_tflite_float16_int8_with_parity(minilm_classifier, task, tmp_path):
    classifier, tokenizer = minilm_classifier
    _, held_out = task
    texts = [t for t, _ in held_out]
    labels = np.array([y for _, y in held_out])

    started = time.perf_counter()
    # No float32 file (~20 CPU-s): see the module docstring for where float32 is checked.
    report = export_tflite(classifier, tmp_path / "tflite", tokenizer=tokenizer, seq_length=48, text=False,
                           quantizations=("float16", "int8"), sample_texts=texts)
    assert report.ok, report.table()
    rows = {(r.artifact, r.output): r for r in report.rows}
    assert rows[("tflite_float16", "logits")].max_abs_diff <= 1e-2
    assert rows[("tflite_int8", "probabilities")].agreement >= 0.99  # top-1 on ~480 held-out lines
    print(f"{report.table()}\ntflite: {time.perf_counter() - started:.0f} s, sizes {report.extra['sizes']}")
    sizes = report.extra["sizes"]
    float32 = 4 * classifier.count_params()  # the weights' float32 bytes: below a float32 file's size
    assert sizes["int8"] < 0.35 * float32 and sizes["float16"] < 0.55 * float32

    # The trained head really learned the task (so the agreement above is on a meaningful model).
    module_ids = keras_bert.Preprocessor(tokenizer, 48)(np.array(texts))
    accuracy = np.mean(np.argmax(classifier.predict({k: v.numpy() for k, v in module_ids.items()},
                                                    verbose=0), -1) == labels)
    print(f"held-out accuracy {accuracy:.3f}")
    assert accuracy >= 0.9, accuracy
