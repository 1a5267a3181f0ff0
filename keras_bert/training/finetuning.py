"""Fine-tuning a BERT checkpoint with `model.fit`: the generic loop and the four standard tasks."""

import hashlib
import json
import math
import os

import keras
import numpy as np
import tensorflow as tf

from keras_bert.errors import make_dir
from keras_bert.training.pretraining import _write_json, check_finished_run
from keras_bert.training.memory_estimate import check_batch_memory
from keras_bert.training.optimizers import create_optimizer
from keras_bert.training.precision import (resolve_jit_compile, restores_dtype_policy,
                                              set_mixed_precision)
from keras_bert.training.resumable_checkpoint import ResumableCheckpoint
from keras_bert.training.step_limit import StepLimit
from keras_bert.training.strategy import get_strategy, is_chief

TASKS = ("classification", "pair_classification", "token_classification", "squad")


def _steps(dataset, what):
    steps = int(dataset.cardinality())
    if steps < 0:
        raise ValueError(f"The {what} dataset must be finite with a known length (got cardinality "
                         f"{steps}); pass steps_per_epoch for endless datasets.")
    return steps


RUN_CONFIG = "run_config.json"


class _SaveEverySteps(keras.callbacks.Callback):
    """Calls `checkpoint.save()` every `every` optimizer steps, except where an epoch end or
    the end of training saves anyway."""

    def __init__(self, checkpoint, every, total_steps):
        super().__init__()
        self.checkpoint, self.every, self.total_steps = checkpoint, int(every), int(total_steps)

    def on_train_batch_end(self, batch, logs=None):
        step = self.checkpoint.step
        if step % self.every == 0 and step < self.total_steps and batch + 1 != self.params["steps"]:
            self.checkpoint.save()


def _model_identity(model, run_config):
    """What must not change between a run and its resumption: the model's shapes and the task."""
    shapes = [list(v.shape) for v in model.variables]
    return {"class": type(model).__name__, "parameters": int(model.count_params()),
            "variables": len(shapes),
            "shapes_sha1": hashlib.sha1(json.dumps(shapes).encode()).hexdigest(),
            "task": json.loads(json.dumps(run_config or {}, default=str))}


def _check_output_dir(output_dir, identity, training):
    """Refuses an output dir whose checkpoints belong to another model or task."""
    path = os.path.join(output_dir, RUN_CONFIG)
    checkpoint_dir = os.path.join(output_dir, "checkpoints")
    if tf.train.latest_checkpoint(checkpoint_dir) is None:
        return path
    if not os.path.exists(path):
        raise ValueError(
            f"{checkpoint_dir} holds checkpoints but {path} is missing, so it cannot be checked "
            "that they belong to this fine-tuning run. Pass a new --output_dir or delete the folder.")
    with open(path, encoding="utf-8") as f:
        stored = json.load(f)
    old = stored.get("model", {})
    if old != identity:
        flat_old = dict(old, **{"task." + k: v for k, v in old.get("task", {}).items()})
        flat_new = dict(identity, **{"task." + k: v for k, v in identity["task"].items()})
        diff = ", ".join(f"{k}: {flat_old.get(k)!r} there vs {flat_new.get(k)!r} now"
                         for k in sorted(set(flat_old) | set(flat_new))
                         if k != "task" and flat_old.get(k) != flat_new.get(k))
        raise ValueError(
            f"{output_dir} holds checkpoints of a different fine-tuning run ({diff}). Refusing to "
            "mix them: pass a new --output_dir, or delete that folder to start over.")
    changed = {k: (stored.get("training", {}).get(k), v) for k, v in training.items()
               if stored.get("training", {}).get(k) != v}
    if changed:
        print(f"Note: resuming {output_dir} with changed settings "
              + ", ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in changed.items()))
    return path


def _fit(model, train_dataset, start_step, total_steps, steps_per_epoch, callbacks, **fit_kwargs):
    """`model.fit` from optimizer step `start_step` to `total_steps`, the data positioned after the
    batches already trained on.

    `train_dataset.repeat()` is one deterministic stream (its shuffle is seeded) as long as
    one iterator reads it: a seeded `shuffle` that reshuffles every epoch draws each epoch's
    order from a generator shared by all iterators of the dataset, so a second iterator (a
    second `fit`) would see other orders. One `fit` over the stream with the first
    `start_step` batches skipped continues it exactly. After a resume inside an epoch, the
    Keras epochs (validation, epoch-end checkpoints) count from `start_step` and the last
    one is cut short at `total_steps` (`StepLimit`).
    """
    initial_epoch = start_step // steps_per_epoch
    epochs = initial_epoch + math.ceil((total_steps - start_step) / steps_per_epoch)
    return model.fit(train_dataset.repeat().skip(start_step), initial_epoch=initial_epoch, shuffle=False,
                     epochs=epochs, steps_per_epoch=steps_per_epoch,
                     callbacks=[StepLimit(total_steps)] + list(callbacks), **fit_kwargs)


def _save_model(model, output_dir):
    """Writes `output_dir/model.keras` via a temporary file, so a kill never leaves half a file."""
    path = os.path.join(output_dir, "model.keras")
    tmp = os.path.join(output_dir, "model.partial.keras")
    model.save(tmp)
    os.replace(tmp, path)
    return path


@restores_dtype_policy
def run_finetuning(build_model, train_dataset, *, loss, metrics=None, weighted_metrics=None,
                   epochs=3, steps_per_epoch=None, learning_rate=2e-5, warmup_ratio=0.1,
                   weight_decay=0.01, eval_dataset=None, output_dir=None, run_config=None,
                   checkpoint_every_steps=500, keep_checkpoints=2, strategy=None,
                   mixed_precision="off", jit_compile="auto", seed=0, callbacks=(), verbose=1):
    """Compiles `build_model()` with BERT's optimizer and fits it; with `output_dir`, resumably.

    With `output_dir`, the whole training state (weights, optimizer moments and step,
    dropout RNG) is checkpointed atomically to `output_dir/checkpoints/` at every epoch
    end and every `checkpoint_every_steps` steps (`ResumableCheckpoint`). Calling again
    with the same arguments after an interruption restores the newest checkpoint and
    skips the batches already trained on, so it ends with the weights an uninterrupted
    run would have (after a resume inside an epoch, the Keras epochs, and so validation,
    count from the resume step; the last one ends at the total). A finished run is not
    trained again: its final state is restored and returned (delete the folder to
    retrain). `output_dir/run_config.json` records the model's shapes and `run_config`;
    a folder whose checkpoints belong to another model or task is refused.

    Args:
        build_model: `fn() -> keras.Model`, called inside the strategy scope (load the
            checkpoint there, e.g. `lambda: build_classifier(load_checkpoint(path), 2)`).
        train_dataset: finite, deterministic `tf.data.Dataset` of
            `(features, labels[, sample_weights])` (seeded shuffle, if any).
        loss: Keras loss (or dict of losses per output).
        metrics, weighted_metrics: Keras metrics for `compile`.
        epochs: passes over `train_dataset`.
        steps_per_epoch: default: the dataset's length.
        learning_rate: peak learning rate (BERT fine-tuning: 2e-5 .. 5e-5).
        warmup_ratio: share of the steps spent warming up.
        weight_decay: decoupled weight decay (not on LayerNorm and biases).
        eval_dataset: evaluated after every epoch (`val_*` in the history).
        output_dir: if given, the run folder: `checkpoints/`, `run_config.json` and the
            trained model as `model.keras` (chief only).
        run_config: JSON-able dict naming what the run is (task, init checkpoint, data,
            labels...); resuming with a different one is refused.
        checkpoint_every_steps: checkpoint interval in steps, besides epoch ends (0: epoch ends only).
        keep_checkpoints: checkpoints kept on disk.
        strategy: a `tf.distribute.Strategy` or `get_strategy` name (default "auto").
        mixed_precision: "off", "bf16" or "fp16".
        jit_compile: "auto", "on" or "off".
        seed: seed for the new head's weights and dropout.
        callbacks: extra Keras callbacks.
        verbose: Keras verbosity.

    Returns:
        `(model, history)`; `history.start_step` is the step training started from
        (0 for a fresh run; the total for a run that had already finished).

    Example:
        >>> model, history = run_finetuning(
        ...     lambda: keras_bert.build_classifier(keras_bert.load_checkpoint(path), 2), train_ds,
        ...     loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    """
    if isinstance(strategy, str) or strategy is None:
        strategy = get_strategy(strategy or "auto")
    set_mixed_precision(mixed_precision)
    keras.utils.set_random_seed(seed)
    steps_per_epoch = steps_per_epoch or _steps(train_dataset, "training")
    total_steps = steps_per_epoch * epochs
    with strategy.scope():
        model = build_model()
        optimizer = create_optimizer(learning_rate, total_steps=total_steps,
                                     warmup_steps=int(warmup_ratio * total_steps),
                                     weight_decay=weight_decay)
        model.compile(optimizer=optimizer, loss=loss, metrics=metrics,
                      weighted_metrics=weighted_metrics,
                      jit_compile=resolve_jit_compile(jit_compile, strategy))
    chief = is_chief(strategy)
    all_callbacks = list(callbacks)
    start_step = 0
    if output_dir:
        output_dir = os.fspath(output_dir)
        make_dir(output_dir, "output_dir (--output_dir)")
        identity = _model_identity(model, run_config)
        training = {"epochs": int(epochs), "steps_per_epoch": int(steps_per_epoch),
                    "learning_rate": float(learning_rate), "warmup_ratio": float(warmup_ratio),
                    "weight_decay": float(weight_decay), "seed": int(seed),
                    "mixed_precision": mixed_precision}
        config_path = _check_output_dir(output_dir, identity, training)
        checkpoint = ResumableCheckpoint(os.path.join(output_dir, "checkpoints"), model,
                                         max_to_keep=keep_checkpoints, is_chief=chief)
        start_step = checkpoint.restore()
        if start_step >= total_steps:
            check_finished_run(config_path, training, output_dir)
        if chief:
            _write_json(config_path, {"model": identity, "training": training})
        all_callbacks = [checkpoint] + all_callbacks
        if checkpoint_every_steps:
            all_callbacks.insert(0, _SaveEverySteps(checkpoint, checkpoint_every_steps, total_steps))
    if start_step >= total_steps:
        print(f"{output_dir} holds a finished run (step {start_step} of {total_steps}); not "
              "training again. Delete the folder (or pass a new --output_dir) to retrain.")
        history = keras.callbacks.History()
        history.set_model(model)
        history.epoch = []
    else:
        if start_step:
            print(f"Resuming fine-tuning from step {start_step} of {total_steps} "
                  f"(epoch {start_step // steps_per_epoch + 1} of {epochs}), checkpoint in "
                  f"{os.path.join(output_dir, 'checkpoints')}.")
        history = _fit(model, train_dataset, start_step, total_steps, steps_per_epoch,
                       all_callbacks, validation_data=eval_dataset, verbose=verbose)
    history.start_step = start_step
    if output_dir and chief:
        _save_model(model, output_dir)
    return model, history


def classification_metrics(labels, logits):
    """Accuracy and macro-averaged F1 of argmax predictions.

    Args:
        labels: int `[n]` gold classes.
        logits: float `[n, classes]`.

    Returns:
        dict with `accuracy`, `macro_f1` and `majority_baseline` (the accuracy of always
        predicting the most frequent gold class).

    Example:
        >>> classification_metrics(np.array([0, 1, 1]), np.array([[2., 0], [0, 1], [3, 0]]))["accuracy"]
        0.6666666666666666
    """
    labels = np.asarray(labels).reshape(-1)
    predictions = np.asarray(logits).reshape(len(labels), -1).argmax(-1)
    f1s = []
    for c in np.unique(np.concatenate([labels, predictions])):
        tp = np.sum((predictions == c) & (labels == c))
        precision = tp / max(1, np.sum(predictions == c))
        recall = tp / max(1, np.sum(labels == c))
        f1s.append(0.0 if tp == 0 else 2 * precision * recall / (precision + recall))
    return {"accuracy": float(np.mean(predictions == labels)), "macro_f1": float(np.mean(f1s)),
            "majority_baseline": float(np.bincount(labels).max() / len(labels))}


def _split_tag(tag, outside):
    """`"B-PER"` -> `("B", "PER")`; the outside label -> `("O", "")`; a bare label is inside (IO)."""
    if tag == outside:
        return "O", ""
    if len(tag) > 1 and tag[1] == "-" and tag[0] in "BIES":
        return tag[0], tag[2:]
    return "I", tag


def entity_spans(tags, outside="O"):
    """The entities in one sentence's tags, as CoNLL's conlleval (and seqeval's default mode) reads them.

    Reads IOB2/BIO (`B-` starts every entity), IOB1 (`I-` after another type or `O` starts
    one, `B-` only separates two adjacent entities of one type) and IOBES tags; a label
    without such a prefix (IO tagging) counts as `I-`. Hand-written, as the metric's
    library, seqeval 1.2.2, ships only a source archive that fails to build with today's
    setuptools_scm; its results are checked against seqeval's in tests/training.

    Args:
        tags: the sentence's label strings, one per word.
        outside: the label that marks "no entity".

    Returns:
        list of `(type, start, end)`, `end` inclusive.

    Example:
        >>> entity_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"])
        [('PER', 0, 1), ('LOC', 3, 3), ('LOC', 4, 4)]
    """
    spans, start = [], 0
    prev_tag, prev_type = "O", ""
    for i, (tag, type_) in enumerate([_split_tag(t, outside) for t in tags] + [("O", "")]):
        ends = (prev_tag in "ES" or (prev_tag in "BI" and tag in "BSO")
                or (prev_tag != "O" and prev_type != type_))
        starts = (tag in "BS" or (prev_tag in "ESO" and tag in "EI")
                  or (tag != "O" and prev_type != type_))
        if ends:
            spans.append((prev_type, start, i - 1))
        if starts:
            start = i
        prev_tag, prev_type = tag, type_
    return spans


def entity_metrics(gold, predicted, outside="O"):
    """Entity-level (CoNLL) micro precision, recall and F1: an entity counts only if its
    whole span and its type are right.

    Args:
        gold, predicted: lists (one per sentence) of tag lists of equal lengths.
        outside: the label that marks "no entity".

    Returns:
        dict with `precision`, `recall`, `f1` (0 where undefined, as seqeval and conlleval
        report) and the counts `gold_entities`, `predicted_entities`, `correct_entities`.

    Example:
        >>> entity_metrics([["B-PER", "I-PER", "O"]], [["B-PER", "O", "O"]])["f1"]
        0.0
    """
    if len(gold) != len(predicted):
        raise ValueError(f"Got {len(gold)} gold and {len(predicted)} predicted sentences; "
                         "expected one prediction per gold sentence.")
    n_gold = n_predicted = n_correct = 0
    for number, (gold_tags, predicted_tags) in enumerate(zip(gold, predicted)):
        if len(gold_tags) != len(predicted_tags):
            raise ValueError(f"Sentence {number} has {len(gold_tags)} gold tags but "
                             f"{len(predicted_tags)} predicted ones; expected one tag per word.")
        gold_spans = set(entity_spans(gold_tags, outside))
        predicted_spans = set(entity_spans(predicted_tags, outside))
        n_gold += len(gold_spans)
        n_predicted += len(predicted_spans)
        n_correct += len(gold_spans & predicted_spans)
    precision = n_correct / n_predicted if n_predicted else 0.0
    recall = n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if n_correct else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "gold_entities": n_gold,
            "predicted_entities": n_predicted, "correct_entities": n_correct}


def token_classification_metrics(labels, logits, weights, label_names, outside="O", gold_tags=None):
    """NER metrics on first word pieces: token accuracy and entity-level (CoNLL) F1.

    Args:
        labels: int `[n, seq]`; logits: float `[n, seq, labels]`; weights: `[n, seq]`
            (1 on the first piece of each word), one row per sentence, in order.
        label_names: the label vocabulary (BIO/IOB1/IOBES tags, see `entity_spans`).
        outside: the label that marks "no entity".
        gold_tags: optional, the sentences' full gold tags (e.g. from `read_conll`): words
            cut off by `seq_length` then count as predicted `outside`, as a CoNLL
            evaluation of the whole file would see them.

    Returns:
        dict with `accuracy` (share of words tagged right), and the entity-level
        `precision`, `recall` and `f1` (an entity counts only if its whole span and type
        are right; micro-averaged over entities, as conlleval and seqeval report).

    Example:
        >>> token_classification_metrics(labels, model.predict(ds), weights, ["O", "B-PER", "I-PER"])["f1"]
    """
    weights, labels = np.asarray(weights), np.asarray(labels)
    predictions = np.asarray(logits).argmax(-1)
    gold, predicted = [], []
    for row in range(len(labels)):
        mask = weights[row] > 0
        row_gold = [label_names[i] for i in labels[row][mask]]
        row_predicted = [label_names[i] for i in predictions[row][mask]]
        if gold_tags is not None:
            full = list(gold_tags[row])
            if full[:len(row_gold)] != row_gold:
                raise ValueError(f"gold_tags[{row}] starts {full[:len(row_gold)]} but the labels' row "
                                 f"{row} holds {row_gold}; pass the sentences in the dataset's order "
                                 "(an unshuffled dataset).")
            row_predicted += [outside] * (len(full) - len(row_gold))
            row_gold = full
        gold.append(row_gold)
        predicted.append(row_predicted)
    words = sum(len(g) for g in gold)
    right = sum(a == b for g, p in zip(gold, predicted) for a, b in zip(g, p))
    scores = entity_metrics(gold, predicted, outside)
    return {"accuracy": right / max(1, words), "precision": scores["precision"],
            "recall": scores["recall"], "f1": scores["f1"]}


def _collect(dataset, index):
    parts = [batch[index] for batch in dataset]
    if isinstance(parts[0], dict):
        return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}
    return np.concatenate([np.asarray(p) for p in parts])


def finetune_task(task, checkpoint, train_file, eval_file=None, *, text_a="sentence", text_b=None,
                  label="label", labels=None, seq_length=128, batch_size=32, epochs=3,
                  learning_rate=3e-5, doc_stride=128, max_query_length=64, output_dir=None,
                  checkpoint_every_steps=500, keep_checkpoints=2, strategy=None,
                  mixed_precision="off", jit_compile="auto", seed=0, verbose=1):
    """Fine-tunes a checkpoint on one of the standard tasks and evaluates it; resumable.

    With `output_dir`, an interrupted run continues from its last checkpoint when called
    again with the same arguments, and a finished one is evaluated, not trained again
    (see `run_finetuning`).

    Args:
        task: "classification", "pair_classification" (needs `text_b`),
            "token_classification" (CoNLL files) or "squad" (SQuAD v1.1/v2.0 JSON).
        checkpoint: any checkpoint `keras_bert.load_checkpoint` reads; its vocab.txt is used.
        train_file, eval_file: data files.
        text_a, text_b, label, labels: column names / label vocabulary (classification).
        seq_length, batch_size, epochs, learning_rate: as usual.
        doc_stride, max_query_length: SQuAD windowing.
        output_dir, checkpoint_every_steps, keep_checkpoints, strategy, mixed_precision,
            jit_compile, seed, verbose: see `run_finetuning`.

    Returns:
        dict: `model`, `history`, `start_step` (where training started: 0, a resumed
        step, or the total for a finished run), `step` (the optimizer step at the end),
        and `metrics` on `eval_file` (classification: accuracy, macro_f1,
        majority_baseline; token classification: word accuracy and entity-level
        precision, recall, f1; SQuAD: exact_match, f1), empty without `eval_file`.

    Example:
        >>> result = finetune_task("classification", "minilm/", "train.csv", "dev.csv",
        ...                        labels=["neg", "pos"], epochs=2)
        >>> result["metrics"]["accuracy"]
    """
    from keras_bert.checkpoints import load_checkpoint
    from keras_bert.models.builders import (build_classifier, build_span_labeler,
                                            build_token_classifier)
    from keras_bert.text.preprocessor import Preprocessor

    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; expected one of {TASKS}.")
    if task == "pair_classification" and not text_b:
        raise ValueError("task 'pair_classification' needs text_b (the second text's column).")
    if text_b and task != "pair_classification":
        raise ValueError(f"text_b (--text_b {text_b}) is only read by task 'pair_classification', "
                         f"not {task!r}; use that task or drop text_b.")
    probe = load_checkpoint(checkpoint, model="encoder")
    check_batch_memory(probe.config, batch_size, seq_length, mixed_precision=mixed_precision)
    text_config = probe.text_config
    del probe
    if text_config is None:
        raise ValueError(f"{checkpoint} has no vocab.txt next to it; fine-tuning needs the "
                         "checkpoint's own vocabulary.")
    tokenizer = text_config.tokenizer()

    def finish(model, history, metrics, **extra):
        if output_dir:  # the text contract travels with model.keras (TextConfig.from_dir reads it)
            text_config.replace(max_seq_length=seq_length).save(output_dir)
        return _result(model, history, metrics, **extra)

    common = dict(epochs=epochs, learning_rate=learning_rate, output_dir=output_dir,
                  checkpoint_every_steps=checkpoint_every_steps, keep_checkpoints=keep_checkpoints,
                  strategy=strategy, mixed_precision=mixed_precision, jit_compile=jit_compile,
                  seed=seed, verbose=verbose)
    # What a resumed run must share with the interrupted one (run_config.json).
    run_config = {"task": task, "checkpoint": os.path.abspath(os.fspath(checkpoint)),
                  "train_file": os.path.abspath(os.fspath(train_file)), "seq_length": seq_length,
                  "batch_size": batch_size}
    scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    if task in ("classification", "pair_classification"):
        from keras_bert.data.classification import classification_dataset, num_classes

        preprocessor = Preprocessor(tokenizer, seq_length)
        read = dict(text_a=text_a, text_b=text_b if task == "pair_classification" else None,
                    label=label, batch_size=batch_size)
        train, labels = classification_dataset(train_file, preprocessor, labels=labels, seed=seed, **read)
        evaluation = None
        if eval_file:
            evaluation, _ = classification_dataset(eval_file, preprocessor, labels=labels,
                                                   shuffle=False, **read)
        _check_classes(train_file, label, _collect(train, 1), labels)
        classes = num_classes(labels, train_file)  # the one label vocabulary, train and eval
        model, history = run_finetuning(
            lambda: build_classifier(load_checkpoint(checkpoint), classes), train, loss=scce,
            metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
            eval_dataset=evaluation, run_config=dict(
                run_config, text_a=text_a, text_b=read["text_b"], label=label, labels=labels),
            **common)
        metrics = {}
        if evaluation is not None:
            metrics = classification_metrics(_collect(evaluation, 1),
                                             model.predict(evaluation, verbose=0))
        return finish(model, history, metrics, labels=labels)

    if task == "token_classification":
        from keras_bert.data.token_classification import read_conll, token_classification_dataset

        train, labels = token_classification_dataset(train_file, tokenizer, seq_length, labels=labels,
                                                     batch_size=batch_size, seed=seed)
        evaluation = None
        if eval_file:
            evaluation, _ = token_classification_dataset(eval_file, tokenizer, seq_length, labels=labels,
                                                         batch_size=batch_size, shuffle=False)
        _check_classes(train_file, "tag", _collect(train, 1)[_collect(train, 2) > 0], labels)
        model, history = run_finetuning(
            lambda: build_token_classifier(load_checkpoint(checkpoint), len(labels)), train,
            loss=scce, weighted_metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
            eval_dataset=evaluation, run_config=dict(run_config, labels=labels), **common)
        metrics = {}
        if evaluation is not None:
            metrics = token_classification_metrics(
                _collect(evaluation, 1), model.predict(evaluation, verbose=0),
                _collect(evaluation, 2), labels, gold_tags=read_conll(eval_file)[1])
        return finish(model, history, metrics, labels=labels)

    from keras_bert.data.squad import squad_dataset, squad_examples, squad_features, squad_postprocess
    from keras_bert.data.squad_metrics import squad_evaluate

    def span_targets(x, y):
        return x, {"start_logits": y["start_positions"], "end_logits": y["end_positions"]}

    window = dict(seq_length=seq_length, doc_stride=doc_stride, max_query_length=max_query_length)
    train_features = squad_features(squad_examples(train_file), tokenizer, **window)
    train = squad_dataset(train_features, batch_size=batch_size, seed=seed).map(span_targets)
    model, history = run_finetuning(
        lambda: _frozen_pooler(build_span_labeler(load_checkpoint(checkpoint))), train,
        loss={"start_logits": scce, "end_logits": scce},
        run_config=dict(run_config, doc_stride=doc_stride, max_query_length=max_query_length),
        **common)
    metrics = {}
    if eval_file:
        examples = squad_examples(eval_file)
        features = squad_features(examples, tokenizer, **window)
        outputs = model.predict(squad_dataset(features, batch_size=batch_size, shuffle=False),
                                verbose=0)
        version_2 = any(e.is_impossible for e in examples)
        predictions = squad_postprocess(features, outputs["start_logits"], outputs["end_logits"],
                                        version_2_with_negative=version_2)
        metrics = squad_evaluate(predictions, examples)
    return finish(model, history, metrics)


def _check_classes(train_file, column, label_ids, labels):
    """Refuses training data of one class: any model scores 100 % on it and learns nothing."""
    classes = np.unique(np.asarray(label_ids))
    if np.issubdtype(classes.dtype, np.integer) and len(classes) < 2:
        name = labels[int(classes[0])] if labels and len(classes) else "?"
        raise ValueError(f"{train_file}: every training example has the {column} {name!r} "
                         f"(--label / label= {column!r}); a classifier needs examples of at least "
                         "two classes.")


def _frozen_pooler(model):
    """The span labeler reads only `sequence_output`: the pooler gets no gradients, so it is
    frozen (kept as loaded, and Keras does not warn that its gradients do not exist)."""
    for layer in model.layers:
        if hasattr(layer, "get_layer") and any(l.name == "pooler" for l in layer.layers):
            layer.get_layer("pooler").trainable = False
    return model


def _result(model, history, metrics, **extra):
    return dict({"model": model, "history": history, "metrics": metrics,
                 "start_step": history.start_step,
                 "step": int(model.optimizer.iterations.numpy())}, **extra)
