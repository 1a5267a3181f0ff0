"""Task: what a fine-tuning task owns (options, reader, head, loss, metrics, post-processing)."""

import numpy as np

from keras_bert.tasks.options import TaskOptions, check_option_names


class Task:
    """Base class of the fine-tuning tasks; `finetune_task` drives one through `run_finetuning`.

    A task declares its options once (`Options`, a `TaskOptions` dataclass: flags, the model's
    `task_config`, the run identity, help). It fits what the training file decides
    (`fit_options`: the label vocabulary), reads its files into `tf.data` (`read`, no side
    effects), builds its head on an encoder (`build_model`), names its loss and training
    metrics (`compile_kwargs`) and turns the model's outputs on the evaluation file into scores
    (`evaluate`). Its options read as attributes (`task.labels`, `task.seq_length`).

    Args:
        tokenizer: a `keras_bert.Tokenizer` (the checkpoint's vocabulary; see `from_checkpoint`).
        seq_length, batch_size, seed: tokens per sequence, examples per batch, shuffle seed
            (None: the task's default).
        **options: the task's own options (`options()`).

    Example:
        >>> task = TASKS["classification"].from_checkpoint(read_checkpoint("bert/"), 128, 32)
        >>> task.fit_options("train.csv").labels   # the label vocabulary, fitted explicitly
        ['neg', 'pos']
        >>> train = task.read("train.csv", training=True)
    """

    HF_PROBLEM_TYPE = None  # Hugging Face's config.json problem_type of the task's sequence head (if it has one)

    name = ""
    Options = TaskOptions
    serving = None  # its `TaskServing` subclass (beside it in its module): how a model of this task is served
    # The fewest examples one loss may see (per replica and micro-batch), and why (for the refusal).
    MIN_BATCH_SIZE, MIN_BATCH_REASON = 1, ""

    @classmethod
    def options(cls):
        """`{name: (type, default, help)}`: this task's own options, its flags (`Options.flags()`)."""
        return cls.Options.flags()

    @classmethod
    def check_options(cls, options, tasks=()):
        """Refuses, in one line, an option this task does not take (e.g. `max_query_length` for a
        classifier), naming the other `tasks` (Task classes) that take it."""
        check_option_names(options, cls.name, cls.options(), tasks)

    def __init__(self, tokenizer, seq_length=None, batch_size=None, seed=None, **options):
        self._start(tokenizer, self.make_options(seq_length, batch_size, seed, **options))

    @classmethod
    def make_options(cls, seq_length=None, batch_size=None, seed=None, **options):
        """This task's `Options` of the run's sizes and its own `options` (None: the default), checked."""
        cls.check_options(options)
        run = {k: v for k, v in (("seq_length", seq_length), ("batch_size", batch_size), ("seed", seed))
               if v is not None}
        return cls.Options(**run, **options)

    @classmethod
    def from_options(cls, tokenizer, options):
        """This task with `options` (a `cls.Options`, checked when it was made)."""
        if not isinstance(options, cls.Options):
            raise TypeError(f"options must be a {cls.__name__}.Options, got {type(options).__name__}.")
        task = object.__new__(cls)
        task._start(tokenizer, options)
        return task

    def _start(self, tokenizer, options):
        if tokenizer is None:
            raise ValueError(f"Task {self.name!r} needs its tokenizer (the checkpoint's vocabulary): build it "
                             "with from_checkpoint(contents, ...) or pass text_config.tokenizer().")
        object.__setattr__(self, "tokenizer", tokenizer)
        object.__setattr__(self, "options", options)

    def __getattr__(self, name):  # options read as attributes: task.labels, task.seq_length
        options = self.__dict__.get("options")
        if options is not None and name in options.__dataclass_fields__:
            return getattr(options, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in self.Options.__dataclass_fields__:
            raise AttributeError(f"{name} is an option: set task.options = task.options.replace({name}=...)")
        object.__setattr__(self, name, value)

    @classmethod
    def from_checkpoint(cls, contents, seq_length=None, batch_size=None, seed=None, *, options=None, **given):
        """This task on a checkpoint (`CheckpointContents`): its tokenizer, and the options the checkpoint
        decides where not given (`checkpoint_options`, e.g. the embedding task's pooling).

        `options`: the task's `Options` made already (`make_options`, e.g. checked before a slow load),
        in place of `seq_length`, `batch_size`, `seed` and `given`; it is copied only where the checkpoint
        decides an unset option.
        """
        if contents.text_config is None:
            raise ValueError(f"{contents.source} has no vocab.txt next to it; fine-tuning needs the "
                             "checkpoint's own vocabulary.")
        if options is None:
            options = cls.make_options(seq_length, batch_size, seed, **given)
        decided = {k: v for k, v in cls.checkpoint_options(contents).items() if getattr(options, k) is None}
        from keras_bert.models.families import bind_pair_layout  # pylint: disable=import-outside-toplevel

        tokenizer = bind_pair_layout(contents.text_config.tokenizer(), contents.config)  # pairs as its family packs
        return cls.from_options(tokenizer, options.replace(**decided) if decided else options)

    @classmethod
    def checkpoint_options(cls, contents):
        """Options a checkpoint decides, as defaults under the given ones (here: none)."""
        return {}

    def fit_options(self, path):
        """Fits the options the training file `path` decides (the label vocabulary where not given);
        returns the options. Called by the run before `build_model`; `read` changes nothing."""
        return self.options

    def read(self, path, training):
        """The dataset of `path`: shuffled (seeded) for training, in file order otherwise."""
        raise NotImplementedError

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
        """The options the model carries (its `task_config`, `Options.task_config()`)."""
        return self.options.task_config()

    @classmethod
    def options_of(cls, task_config, where="task_config"):
        """The checked `Options` of a model's `task_config` (one-line error naming `where`)."""
        return cls.Options.from_task_config(task_config, where)

    @classmethod
    def from_model(cls, model, batch_size=32):
        """This task as `model` (a loaded `BertTaskModel` of it) was trained: its tokenizer and options."""
        if getattr(model, "task", None) != cls.name:
            raise ValueError(f"Model {model.name!r} is a {getattr(model, 'task', None)!r} model, "
                             f"not {cls.name!r}.")
        if model.text_config is None:
            raise ValueError(f"Model {model.name!r} carries no text contract (vocab); it was not "
                             "saved by keras_bert's fine-tuning.")
        options = cls.options_of(model.task_config, f"Model {model.name!r}").replace(batch_size=batch_size)
        from keras_bert.models.model_operations import find_encoder  # pylint: disable=import-outside-toplevel
        from keras_bert.models.families import bind_pair_layout  # pylint: disable=import-outside-toplevel

        return cls.from_options(bind_pair_layout(model.text_config.tokenizer(), find_encoder(model).config), options)

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
        return self.options.identity()


def freeze_pooler(model):
    """`model` with its encoder's pooler frozen, for heads that read only `sequence_output`
    (tags, spans): the pooler gets no gradients, so it stays as loaded and Keras does not
    warn that its gradients do not exist. Done here, not in the builders: the encoder a task
    builds on is its own, while a builder's caller may share theirs with a classifier. An encoder
    without BERT's pooler (ModernBERT's `head` also feeds the per-token heads) has none to freeze."""
    from keras_bert.models.model_operations import find_encoder

    for layer in find_encoder(model).layers:
        if layer.name == "pooler":
            layer.trainable = False
    return model


def collect(dataset, index):
    """Element `index` of every batch of `dataset`, concatenated (dicts key by key)."""
    parts = [batch[index] for batch in dataset]
    if isinstance(parts[0], dict):
        return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}
    return np.concatenate([np.asarray(p) for p in parts])


def check_classes(path, column, label_ids, labels, tagger=False):
    """Refuses training data of one class: any model scores 100 % on it and learns nothing.
    `tagger`: the classes are a CoNLL file's word tags (no --label column to name)."""
    classes = np.unique(np.asarray(label_ids))
    if np.issubdtype(classes.dtype, np.integer) and len(classes) < 2:
        name = labels[int(classes[0])] if labels and len(classes) else "?"
        if tagger:
            raise ValueError(f"{path}: every training word has the {column} {name!r}; a tagger needs words of at "
                             "least two tags (e.g. O and B-PER).")
        raise ValueError(f"{path}: every training example has the {column} {name!r} "
                         f"(--label / label= {column!r}); a classifier needs examples of at least "
                         "two classes.")


def check_labels(labels, num_outputs, task):
    """`labels` as a list of `num_outputs` distinct strings, or a one-line error (also for a name
    that breaks the label-name rule, `keras_bert.text.label_names`: a model saved before the rule)."""
    from keras_bert.text.label_names import label_name

    labels = [str(label) for label in labels]
    for label in labels:
        label_name(label, f"labels= of the {task} (--labels)")
    if len(labels) != num_outputs:
        raise ValueError(
            f"labels= has {len(labels)} names but the {task} has {num_outputs} outputs; pass the "
            "label vocabulary the model was fine-tuned with (labels[i] is output i).")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels= lists a name twice: {labels}; every label must appear once.")
    return labels


def fitted_labels(task):
    """`task.labels`, or a one-line error when they were neither given nor fitted (`fit_options`)."""
    if task.labels is None:
        raise ValueError(f"Task {task.name!r} has no label vocabulary yet: pass labels= (--labels) or call "
                         "task.fit_options(train_file) before reading or building.")
    return task.labels
