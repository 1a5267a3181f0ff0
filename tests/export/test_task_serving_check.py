"""The task signatures through TF Serving's C++ load path (tools/serving_check) equal Python's."""

import numpy as np
import pytest
import tensorflow as tf

from tests.export.test_serving_check import run, serving_check  # noqa: F401 (fixture)
from tests.tasks.test_task_signatures import NER_TEXTS, ner_export, ner_model  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


def test_cpp_loader_serves_entities_like_python(serving_check, ner_export, tmp_path):  # noqa: F811
    texts = np.array([t.encode() for t in NER_TEXTS])
    proc, cpp = run(serving_check, ner_export, "entities", {"text": texts}, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = tf.saved_model.load(ner_export).signatures["entities"](text=tf.constant(texts))
    assert set(cpp) == set(python) == {"entity_text", "entity_label", "start_char", "end_char", "score",
                                       "num_entities"}
    for name, value in python.items():
        if value.dtype == tf.string:
            assert cpp[name].tolist() == value.numpy().tolist()
        else:
            np.testing.assert_allclose(cpp[name], value.numpy(), atol=1e-6)
