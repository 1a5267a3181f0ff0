"""export/mediapipe_worker.py: MediaPipe's own TextEmbedder run in a fresh process without TensorFlow; read
through the probe model, the ids it packs equal the reference tokenizer's on ASCII text."""

import numpy as np
import tensorflow as tf

from keras_bert.export.mediapipe_check import probe_ids, run_mediapipe, write_probe
from keras_bert.text.preprocessor import Preprocessor
from tests.export.conftest import small_vocab, tokenizer  # noqa: F401 (export's small vocabulary)

TEXTS = ["To be, or not to be", "the king is dead", ""]


def test_the_worker_packs_ascii_text_as_the_reference(tokenizer, tmp_path):
    probe = tmp_path / "probe.tflite"
    write_probe(probe, tokenizer.vocab_path, 16)
    (embeddings,) = run_mediapipe([("embedder", probe)], TEXTS, timeout=300)
    assert embeddings.shape == (3, 48)
    got = probe_ids(embeddings)
    want = Preprocessor(tokenizer, 16)(tf.constant(TEXTS))
    for name, value in got.items():
        np.testing.assert_array_equal(value, want[name].numpy(), err_msg=name)
