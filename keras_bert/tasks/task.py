"""Task: what a fine-tuning task owns (reader, head, loss, metrics, post-processing)."""

import inspect

import numpy as np


class Task:
    """Base class of the fine-tuning tasks; `finetune_task` drives one through `run_finetuning`.

    A task reads its files into `tf.data` (`read`), builds its head on an encoder
    (`build_model`), names its loss and training metrics (`compile_kwargs`) and turns the
    model's outputs on the evaluation file into scores (`evaluate`). `identity()` is what a
    resumed run must share with the interrupted one (written to run_config.json).

    Args:
        tokenizer: a `keras_bert.Tokenizer` (the checkpoint's vocabulary).
        seq_length: tokens per sequence.
        batch_size: examples per batch.
        seed: shuffle seed of the training data.

    Example:
        >>> task = TASKS["classification"](tokenizer, 128, 32, labels=["neg", "pos"])
        >>> train = task.read("train.csv", training=True)
    """

    name = ""
    # The fewest examples one loss may see (per replica and micro-batch), and why (for the refusal).
    MIN_BATCH_SIZE, MIN_BATCH_REASON = 1, ""
    # Help text of each option (a keyword-only, annotated argument of the constructor);
    # tools/finetune.py offers them as the task's flags (`finetune.py TASK --help`).
    OPTION_HELP = {}

    @classmethod
    def options(cls):
        """`{name: (type, default, help)}`: this task's options, the keyword-only arguments of its
        constructor and its bases' (types from their annotations)."""
        found = {}
        for klass in cls.__mro__:
            if klass is Task or not issubclass(klass, Task):
                break
            for param in inspect.signature(klass.__init__).parameters.values():
                if param.kind is param.KEYWORD_ONLY and param.name not in found:
                    help_text = next((c.OPTION_HELP[param.name] for c in cls.__mro__
                                      if param.name in getattr(c, "OPTION_HELP", {})), "")
                    found[param.name] = (param.annotation, param.default, help_text)
        return found

    @classmethod
    def check_options(cls, options, tasks=()):
        """Refuses, in one line, an option this task does not take (e.g. `max_query_length` for a
        classifier), naming the other `tasks` (Task classes) that take it."""
        known = cls.options()
        for name, value in options.items():
            if name not in known:
                owners = [t.name for t in tasks if name in t.options()]
                raise ValueError(
                    f"Option {name} (--{name} {value}) does not apply to task {cls.name!r}"
                    + (f"; it is an option of {', '.join(owners)}" if owners else "")
                    + f". {cls.name}'s options: {', '.join(known) or 'none'}.")

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0):
        self.tokenizer = tokenizer
        self.seq_length = int(seq_length)
        self.batch_size = int(batch_size)
        self.seed = int(seed)

    def read(self, path, training):
        """The dataset of `path`: shuffled (seeded) for training, in file order otherwise."""
        raise NotImplementedError

    def use_checkpoint(self, contents):
        """Takes what the task needs from the checkpoint it fine-tunes (`CheckpointContents`):
        its text contract (the tokenizer); a task may take more (the embedding task its pooling)."""
        self.tokenizer = contents.text_config.tokenizer()

    def build_model(self, encoder):
        """The task's model on `encoder` (a loaded `BertEncoder`), carrying what it is.

        The encoder gets the tokenizer's text contract (with `max_seq_length` = this task's
        `seq_length`); the model gets the task's name and `model_options()`, so its `.keras`
        file alone says how to tokenize, serve and evaluate it (`from_model`).
        """
        encoder.text_config = self.tokenizer.text_config.replace(max_seq_length=self.seq_length)
        return self.build_head(encoder, self.model_options())

    def build_head(self, encoder, task_config):
        """`BertTaskModel` of this task's head on `encoder`, named `self.name`, with `task_config`."""
        raise NotImplementedError

    def model_options(self):
        """The options the model carries (its `task_config`): constructor keywords of this task,
        so `from_model` rebuilds it. Reader options stay out unless evaluation needs them."""
        return {"seq_length": self.seq_length}

    @classmethod
    def from_model(cls, model, batch_size=32):
        """This task as `model` (a loaded `BertTaskModel` of it) was trained: its tokenizer and options."""
        if getattr(model, "task", None) != cls.name:
            raise ValueError(f"Model {model.name!r} is a {getattr(model, 'task', None)!r} model, "
                             f"not {cls.name!r}.")
        if model.text_config is None:
            raise ValueError(f"Model {model.name!r} carries no text contract (vocab); it was not "
                             "saved by keras_bert's fine-tuning.")
        return cls(model.text_config.tokenizer(), batch_size=batch_size, **model.task_config)

    def compile_kwargs(self):
        """`loss` and training metrics for `model.compile`."""
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        return {"loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                "metrics": [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]}

    def validation_data(self, evaluation):
        """What `fit` evaluates every epoch (None: nothing)."""
        return evaluation

    def evaluate(self, model, evaluation, path):
        """Scores on the evaluation file `path` (read as `evaluation`)."""
        raise NotImplementedError

    def explain_metric(self, name, value):
        """Why metric `name` of `evaluate` came out `value`, not a finite number (metrics.json's note)."""
        return f"{value}: not a finite number"

    def identity(self):
        """JSON-able settings a resumed run must share (besides the checkpoint and data)."""
        return {"seq_length": self.seq_length, "batch_size": self.batch_size}

    # ----- Serving: what keras_bert.export asks of a model of this task (export/ names no task).

    # The `text_signatures` that TFLite can run too (TFLite builtins + tensorflow-text ops only).
    tflite_signatures = ()

    @classmethod
    def check_serving(cls, model, task_config):
        """Raises a one-line error if `task_config` cannot serve `model`; here: label names, when
        the task has them, must name each output."""
        if task_config.get("labels") is not None:
            check_labels(task_config["labels"], model.output.shape[-1], f"{cls.name} model")

    @classmethod
    def serving_outputs(cls, outputs, task_config):
        """The model's outputs as served from ids (TF ops; runs in the serving graph and eagerly)."""
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        return {"logits": outputs, "probabilities": tf.nn.softmax(outputs, axis=-1)}

    @classmethod
    def text_signatures(cls, module, task_config):
        """`{name: tf.function}`: raw text in, the task's answer out (`module`: export's ServingModule)."""
        return {}

    @classmethod
    def onnx_outputs(cls, module, inputs, outputs, task_config):
        """Extra outputs of `model.onnx` (ids in): the task's answer where ONNX can compute it."""
        return {}


def freeze_pooler(model):
    """`model` with its encoder's pooler frozen, for heads that read only `sequence_output`
    (tags, spans): the pooler gets no gradients, so it stays as loaded and Keras does not
    warn that its gradients do not exist. Done here, not in the builders: the encoder a task
    builds on is its own, while a builder's caller may share theirs with a classifier."""
    from keras_bert.checkpoints.weight_map import find_encoder

    find_encoder(model).get_layer("pooler").trainable = False
    return model


def collect(dataset, index):
    """Element `index` of every batch of `dataset`, concatenated (dicts key by key)."""
    parts = [batch[index] for batch in dataset]
    if isinstance(parts[0], dict):
        return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}
    return np.concatenate([np.asarray(p) for p in parts])


def check_classes(path, column, label_ids, labels):
    """Refuses training data of one class: any model scores 100 % on it and learns nothing."""
    classes = np.unique(np.asarray(label_ids))
    if np.issubdtype(classes.dtype, np.integer) and len(classes) < 2:
        name = labels[int(classes[0])] if labels and len(classes) else "?"
        raise ValueError(f"{path}: every training example has the {column} {name!r} "
                         f"(--label / label= {column!r}); a classifier needs examples of at least "
                         "two classes.")


def check_labels(labels, num_outputs, task):
    """`labels` as a list of `num_outputs` distinct strings, or a one-line error."""
    labels = [str(label) for label in labels]
    if len(labels) != num_outputs:
        raise ValueError(
            f"labels= has {len(labels)} names but the {task} has {num_outputs} outputs; pass the "
            "label vocabulary the model was fine-tuned with (labels[i] is output i).")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels= lists a name twice: {labels}; every label must appear once.")
    return labels
