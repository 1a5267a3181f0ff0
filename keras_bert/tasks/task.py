"""Task: what a fine-tuning task owns (reader, head, loss, metrics, post-processing)."""

import keras
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

    def __init__(self, tokenizer, seq_length=128, batch_size=32, seed=0):
        self.tokenizer = tokenizer
        self.seq_length = int(seq_length)
        self.batch_size = int(batch_size)
        self.seed = int(seed)

    def read(self, path, training):
        """The dataset of `path`: shuffled (seeded) for training, in file order otherwise."""
        raise NotImplementedError

    def build_model(self, encoder):
        """The task's model on `encoder` (a loaded `BertEncoder`)."""
        raise NotImplementedError

    def compile_kwargs(self):
        """`loss` and training metrics for `model.compile`."""
        return {"loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                "metrics": [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]}

    def validation_data(self, evaluation):
        """What `fit` evaluates every epoch (None: nothing)."""
        return evaluation

    def evaluate(self, model, evaluation, path):
        """Scores on the evaluation file `path` (read as `evaluation`)."""
        raise NotImplementedError

    def identity(self):
        """JSON-able settings a resumed run must share (besides the checkpoint and data)."""
        return {"seq_length": self.seq_length, "batch_size": self.batch_size}


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
