"""The toy task of tests/test_seams.py: its module (length_parity.py) and the two scripts that use it as a
plugin (train.py: registers it, fine-tunes a step; serve.py: loads model.keras, registers it, exports it)."""


TOY_TASK = '''
"""A toy task: one text -> whether its word count is even ("even") or odd ("odd"), on the classifier's head."""

import csv
import dataclasses

import numpy as np

from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, collect

LABELS = ["odd", "even"]  # output i


@dataclasses.dataclass(frozen=True)
class LengthParityOptions(TaskOptions):
    task_name = "length_parity"
    text: str = option("sentence", "column of the text whose words are counted")


class LengthParityServing(TaskServing):
    name = "length_parity"
    Options = LengthParityOptions

    def text_signatures(self):
        import tensorflow as tf

        def parity(text):
            probabilities = self.serve_text(text, tf.zeros([0], tf.string))["probabilities"]
            top = tf.argmax(probabilities, axis=-1, output_type=tf.int32)
            return {"parity": tf.gather(tf.constant(LABELS), top), "probabilities": probabilities}

        return {"parity": tf.function(parity, input_signature=[tf.TensorSpec([None], tf.string, name="text")])}


class LengthParityTask(Task):
    name = "length_parity"
    Options = LengthParityOptions
    serving = LengthParityServing

    def read(self, path, training):
        import tensorflow as tf

        from keras_bert.text.preprocessor import Preprocessor

        with open(path, newline="", encoding="utf-8") as f:
            texts = [row[self.text] for row in csv.DictReader(f)]
        labels = [int(len(text.split()) % 2 == 0) for text in texts]
        features = Preprocessor(self.tokenizer, self.seq_length)(tf.constant(texts))
        dataset = tf.data.Dataset.from_tensor_slices((features, tf.constant(labels, tf.int32)))
        if training:
            dataset = dataset.shuffle(len(texts), seed=self.seed)
        return dataset.batch(self.batch_size)

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_classifier

        return build_classifier(encoder, len(LABELS), name="length_parity", task=self.name, task_config=task_config)

    def evaluate(self, model, evaluation, path):
        logits = model.predict(evaluation, verbose=0)
        return {"accuracy": float(np.mean(logits.argmax(-1) == collect(evaluation, 1)))}
'''

TOY_TRAIN = '''
import json
import os
import sys

from keras_bert.tasks import TASKS, finetune_task
from keras_bert.training.run_config import RunConfig
from tests.reliability.conftest import write_tiny_checkpoint

import length_parity

TASKS[length_parity.LengthParityTask.name] = length_parity.LengthParityTask  # the one registration line

folder = sys.argv[1]
checkpoint = write_tiny_checkpoint(folder)
result = finetune_task("length_parity", checkpoint, os.path.join(folder, "train.csv"), os.path.join(folder, "dev.csv"),
                       seq_length=16, batch_size=4, epochs=1, text="text",
                       run=RunConfig(output_dir=os.path.join(folder, "run"), verbose=0, jit_compile="off"))
model = result["model"]
print(json.dumps({"step": result["step"], "metrics": result["metrics"], "task": model.task,
                  "task_config": model.task_config}))
'''

TOY_SERVE = '''
import json
import os
import sys

import keras
import numpy as np
import tensorflow as tf

from keras_bert.export import export_model
from keras_bert.tasks import TASKS
from keras_bert.text.preprocessor import Preprocessor

import length_parity

folder = sys.argv[1]
model = keras.saving.load_model(os.path.join(folder, "run", "model.keras"))  # the model is data: no task needed
export = dict(formats=["savedmodel"], tokenizer=model.text_config.tokenizer(), base_dir=os.path.join(folder, "sm"),
              seq_length=16)
try:
    export_model(model, "parity", **export)
    refused = None
except ValueError as error:  # before its registration, the task is unknown to export
    refused = str(error)
TASKS[length_parity.LengthParityTask.name] = length_parity.LengthParityTask  # the one registration line
options = TASKS[model.task].from_model(model).model_options()
reports = export_model(model, "parity", **export)
report = reports["savedmodel"]
texts = ["one two three", "a fine film", "the ferry left helsinki late", "it rains"]
answer = tf.saved_model.load(report.path).signatures["parity"](text=tf.constant(texts))
keras_probabilities = tf.nn.softmax(model.predict(Preprocessor(model.text_config.tokenizer(), 16)(
    tf.constant(texts)), verbose=0), axis=-1).numpy()
print(json.dumps({"class": type(model).__name__, "task": model.task, "options": options, "refused": refused,
                  "ok": report.ok, "path": report.path, "rows": sorted({row.signature for row in report.rows}),
                  "files": sorted(os.listdir(report.path)), "parity": [p.decode() for p in answer["parity"].numpy()],
                  "gap": float(np.abs(answer["probabilities"].numpy() - keras_probabilities).max()),
                  "sums": answer["probabilities"].numpy().sum(-1).tolist()}))
'''
