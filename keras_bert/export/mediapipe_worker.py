"""Runs a MediaPipe Tasks text model on raw text in a fresh process, as an app does.

`mediapipe.export_mediapipe` executes this file's source with `python -c` (so this folder,
whose `mediapipe.py` would shadow the real package, is not on the import path) and passes one
JSON job as argv[1]: `{"texts": file of one JSON string per line, "runs": [{"task":
"classifier"|"embedder", "path": model.tflite, "outputs": out.npz}, ...]}`. The texts go one at
a time through `mediapipe.tasks.python.text.TextClassifier` (scores ordered by category index)
or `TextEmbedder` (float embeddings, no L2 normalization, no quantization); each outputs file
holds `scores` or `embeddings`, `[texts, n]`. TensorFlow, Keras, JAX and keras_bert are blocked,
as on a phone: MediaPipe imports TensorFlow only if it is there (for its API docs).
"""

import json
import sys

import numpy as np

for _name in ("tensorflow", "keras", "jax", "keras_bert"):
    sys.modules[_name] = None  # any import of it now raises ModuleNotFoundError

from mediapipe.tasks.python import text  # noqa: E402
from mediapipe.tasks.python.core.base_options import BaseOptions  # noqa: E402


def _classify(path, texts):
    options = text.TextClassifierOptions(base_options=BaseOptions(model_asset_path=path))
    with text.TextClassifier.create_from_options(options) as classifier:
        scores = []
        for line in texts:
            categories = classifier.classify(line).classifications[0].categories
            row = [0.0] * len(categories)
            for category in categories:
                row[category.index] = category.score
            scores.append(row)
    return {"scores": np.array(scores, np.float32)}


def _embed(path, texts):
    options = text.TextEmbedderOptions(base_options=BaseOptions(model_asset_path=path),
                                       l2_normalize=False, quantize=False)
    with text.TextEmbedder.create_from_options(options) as embedder:
        rows = [np.asarray(embedder.embed(line).embeddings[0].embedding, np.float32) for line in texts]
    return {"embeddings": np.stack(rows)}


def main(argv):
    job = json.loads(argv[1])
    with open(job["texts"], encoding="utf-8") as f:
        texts = [json.loads(line) for line in f]
    for run in job["runs"]:
        task = {"classifier": _classify, "embedder": _embed}[run["task"]]
        np.savez(run["outputs"], **task(run["path"], texts))


if __name__ == "__main__":
    main(sys.argv)
