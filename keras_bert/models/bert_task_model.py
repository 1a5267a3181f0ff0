"""BertTaskModel: a BERT encoder with a task's head, carrying what it is in its own `.keras` file."""

import json

import keras

from keras_bert.models.bert_encoder import BertEncoder, EncoderTextConfig  # noqa: F401
from keras_bert.models.families import ENCODER_CLASSES
from keras_bert.models.task_head import TaskHead
from keras_bert.text.label_names import label_vocabulary_names


@keras.saving.register_keras_serializable(package="keras_bert")
class BertTaskModel(EncoderTextConfig, keras.Model):
    """A functional model around one `BertEncoder` that knows its task, labels and serving options.

    Everything a tool needs to use the model is in its config, so `model.save("m.keras")` and a
    fresh process's `keras.saving.load_model` (after `import keras_bert`) give it back whole:
    `task` names an entry of `keras_bert.tasks.TASKS` (which serves, evaluates and converts it),
    `task_config` holds the task's options (label names, `seq_length`, SQuAD's `doc_stride`...),
    the encoder holds the text contract (`model.text_config`, vocab as the file's asset) and the
    head layer (`model.head`, a `TaskHead`) its shape, Google / Hugging Face names and options.

    Args:
        inputs, outputs: as for a functional `keras.Model`.
        task: the task's name (e.g. "classification"), or None: a bare head, or one whose source names no task
            (a folder transformers wrote; `keras_bert.tasks.task_of` names it from the head's problem_type).
        task_config: JSON-able dict of the task's options.
        frozen_layers: names of the encoder's layers that do not train (a task whose head reads no
            `pooled_output` freezes the pooler): saved with the model, so a reloaded model trains the
            variables it trained, and its saved optimizer state (one slot per trained variable) fits it.

    Example:
        >>> model = build_classifier("bert_tiny_uncased", 2, task_config={"labels": ["neg", "pos"]})
        >>> model.task, model.task_config["labels"], type(model.head).__name__
        ('classification', ['neg', 'pos'], 'SequenceHead')
    """

    def __init__(self, *args, task=None, task_config=None, frozen_layers=None, **kwargs):
        super().__init__(*args, **kwargs)
        for layer in self.encoder.layers if frozen_layers else ():
            if layer.name in frozen_layers:
                layer.trainable = False
        task_config = dict(task_config or {})
        try:
            json.dumps(task_config)
        except TypeError as e:
            raise TypeError(f"task_config must be JSON-able (it is saved with the model): {e}") from e
        self.task = task
        object.__setattr__(self, "_task_config", task_config)  # plain JSON, not Keras-tracked state

    @classmethod
    def from_head(cls, encoder, head, name=None, task=None, task_config=None):
        """The model of `head` (a `TaskHead`) on `encoder`, wired as the head says (`head.connect`)."""
        inputs, outputs = head.connect(encoder)
        return cls(inputs, outputs, name=name or head.MODEL_NAME, task=task, task_config=task_config)

    @property
    def task_config(self):
        """The task's options (a copy: change them with `with_task_config`)."""
        return json.loads(json.dumps(self._task_config))

    def with_task_config(self, **changes):
        """Updates task options in place (e.g. `labels=` once the training file is read); returns self."""
        merged = dict(self._task_config, **changes)
        json.dumps(merged)
        object.__setattr__(self, "_task_config", merged)
        return self

    @property
    def encoder(self):
        """The `BertEncoder` inside."""
        for layer in self.layers:
            if isinstance(layer, ENCODER_CLASSES):  # any family's encoder
                return layer
        raise ValueError(f"Model {self.name!r} holds no BertEncoder.")

    @property
    def head(self):
        """The `TaskHead` layer, or None (a head assembled by hand)."""
        return next((layer for layer in self.layers if isinstance(layer, TaskHead)), None)

    def check_labels(self, source):
        """Returns self, or a one-line error naming `source` (the file the model was read from) when the
        label names of `task_config` do not name each output of the head once (e.g. a config.json whose
        id2label lists 3 names over a 2-output classifier: transformers refuses that size mismatch too)."""
        labels = self._task_config.get("labels")
        if labels is None:
            return self
        bad = [n for n in labels if isinstance(n, bool) or not isinstance(n, (str, int))] \
            if isinstance(labels, list) else [labels]
        if bad:
            raise ValueError(f"{source}: label {bad[0]!r} of the labels {labels!r} is not a name; every output needs one.")
        names = label_vocabulary_names(labels, f"{source}: the label names")
        width = keras.tree.flatten(self.output)[0].shape[-1]
        if len(names) != width:
            raise ValueError(f"{source} lists {len(names)} label names but the head of model {self.name!r} has {width} "
                             "outputs; the labels must name each output once (labels[i] is output i): fix the file's "
                             "labels (id2label in config.json) or the head.")
        return self

    def row_model(self):  # a method: Keras's saving walks properties
        """This model as called on `[rows, seq]` ids (what serving packs from text): itself, or its
        head's row model (`TaskHead.row_model`, e.g. multiple choice's one score per row)."""
        return self.head.row_model(self) if self.head is not None else self

    def with_dtype(self, dtype):
        """This model rebuilt from its own config (encoder, head, task) under the dtype policy `dtype`
        (e.g. "mixed_bfloat16"), holding its weights and text contract."""
        head = self.head
        if head is None:
            raise ValueError(f"Model {self.name!r} has no TaskHead to rebuild.")
        encoder = type(self.encoder)(self.encoder.config, dtype=dtype, text_config=self.encoder.text_config)
        new_head = type(head).from_config(dict(head.get_config(), dtype=dtype))
        model = BertTaskModel.from_head(encoder, new_head, self.name, self.task, self.task_config)
        model.set_weights(self.get_weights())
        return model

    def get_config(self):
        encoder = next((layer for layer in self.layers if isinstance(layer, ENCODER_CLASSES)), None)
        frozen = [layer.name for layer in encoder.layers if not layer.trainable] if encoder and encoder.trainable else []
        return dict(super().get_config(), task=self.task, task_config=self.task_config,
                    **({"frozen_layers": frozen} if frozen else {}))
