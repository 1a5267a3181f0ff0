"""Helpers of the new-task tests (regression, multi_label): a tiny checkpoint, fresh-process loading and serving."""

import csv
import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def write_csv(path, header, rows):
    """A CSV file with a header row; returns its path as a string."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def tiny_checkpoint(minilm_dir, path):
    """A 1-layer keras_bert checkpoint with MiniLM's real uncased vocab at `path`, the same weights every time
    (seeded here: what a test learns from it must not depend on the tests its pytest worker ran before)."""
    import keras

    import keras_bert

    keras.utils.set_random_seed(0)

    config = keras_bert.BertConfig(vocab_size=30522, hidden_size=32, num_layers=1, num_heads=2,
                                   intermediate_size=64, max_position_embeddings=128)
    vocab = os.path.join(minilm_dir, "vocab.txt")
    keras_bert.save_checkpoint(keras_bert.build_encoder(config), str(path), format="keras", vocab_file=vocab,
                               text_config=keras_bert.Tokenizer(vocab).text_config)
    return str(path)


def _python(source, *args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-c", source, *map(str, args)], capture_output=True, text=True,
                            env=env, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


# Only tensorflow and tensorflow-text's op kernels (as TF Serving): keras and keras_bert are blocked.
SERVE = """
import glob, importlib.util, json, os, sys
for name in ("keras", "keras_bert", "tf_keras"):
    sys.modules[name] = None
import tensorflow as tf
ops = importlib.util.find_spec("tensorflow_text").submodule_search_locations[0]
for library in sorted(glob.glob(os.path.join(ops, "python", "ops", "*.so"))):
    tf.load_op_library(library)
signature = tf.saved_model.load(sys.argv[1]).signatures[sys.argv[2]]
feeds = {name: tf.constant(value, tf.string) for name, value in json.loads(sys.argv[3]).items()}
out = {}
for name, value in signature(**feeds).items():
    value = value.numpy()
    out[name] = [[v.decode() for v in row] for row in value] if value.dtype == object else value.tolist()
print(json.dumps(out))
"""


def serve_saved_model(export_dir, signature, **texts):
    """A SavedModel signature called on raw `texts` in a fresh process with only tensorflow + its text ops."""
    return _python(SERVE, export_dir, signature, json.dumps(texts))


def keras_on_text(model, seq_length, text_a, text_b=None):
    """The Keras model's outputs on raw text, tokenized and packed by keras_bert in Python."""
    import tensorflow as tf

    from keras_bert.text.preprocessor import Preprocessor

    preprocessor = Preprocessor(model.text_config.tokenizer(), seq_length)
    features = preprocessor(tf.constant(text_a), None if text_b is None else tf.constant(text_b))
    return model.predict(features, verbose=0)


def finetune_tiny(task, minilm_dir, tmp_path, train, dev, **options):
    """`finetune_task(task, ...)` from a tiny checkpoint (seq_length 16, batch 16), the run folder `tmp_path/run`."""
    from keras_bert.tasks import finetune_task
    from keras_bert.training.run_config import RunConfig

    checkpoint = tiny_checkpoint(minilm_dir, tmp_path / "bert")
    return finetune_task(task, checkpoint, train, dev, seq_length=16, batch_size=16,
                         run=RunConfig(output_dir=str(tmp_path / "run"), verbose=0, jit_compile="off"), **options)


def saved_model_signature(export_dir, signature, **texts):
    """A SavedModel signature called on raw `texts` here, outputs decoded as `serve_saved_model`'s. That the
    SavedModel serves the same with only tensorflow + its text ops is export's own check (`check_saved_model`:
    every signature in a fresh process that blocks keras and keras_bert, against the Keras model's)."""
    import tensorflow as tf

    function = tf.saved_model.load(export_dir).signatures[signature]
    out = {}
    for name, value in function(**{k: tf.constant(v, tf.string) for k, v in texts.items()}).items():
        value = value.numpy()
        out[name] = [[v.decode() for v in row] for row in value] if value.dtype == object else value.tolist()
    return out


def reload_and_export(tmp_path, name, task_config):
    """The run's model.keras, loaded (its task options checked against `task_config`), then exported to
    SavedModel, TFLite and ONNX, every artifact checked against Keras by export itself in fresh processes.
    TFLite: the text model only (the task's signature; the ids model_float32 of a classifier and the float16 /
    int8 files convert the same graph, tests/export/test_tflite.py). A fresh process loading a task's model.keras
    is what tools/export.py does in tests/test_readme.py::test_export_command_runs_as_written.
    Returns `(model, reports, parity table)`."""
    import keras

    from keras_bert.export import export_model, export_tflite, parity_table
    from keras_bert.tasks import TASKS

    model = keras.saving.load_model(str(tmp_path / "run" / "model.keras"))
    assert type(model).__name__ == "BertTaskModel" and model.task_config == task_config, model.task_config
    assert TASKS[model.task].from_model(model).model_options() == task_config
    tokenizer = model.text_config.tokenizer()
    assert tokenizer.vocab_size == 30522
    reports = export_model(model, name, formats=["savedmodel", "onnx"], tokenizer=tokenizer,
                           base_dir=str(tmp_path / "savedmodels"), seq_length=16)
    reports["tflite"] = export_tflite(model, tmp_path / "tflite", tokenizer, seq_length=16, quantizations=(),
                                      raise_on_failure=False)
    table = parity_table(reports)
    assert all(report.ok for report in reports.values()), table
    return model, reports, table
