"""Fine-tuning a BERT checkpoint with `model.fit`: the generic loop and the four standard tasks."""

import math
import os

import keras
import numpy as np
import tensorflow as tf

from keras_bert.training.optimizers import create_optimizer
from keras_bert.training.precision import (resolve_jit_compile, restores_dtype_policy,
                                              set_mixed_precision)
from keras_bert.training.strategy import get_strategy, is_chief

TASKS = ("classification", "pair_classification", "token_classification", "squad")


def _steps(dataset, what):
    steps = int(dataset.cardinality())
    if steps < 0:
        raise ValueError(f"The {what} dataset must be finite with a known length (got cardinality "
                         f"{steps}); pass steps_per_epoch for endless datasets.")
    return steps


@restores_dtype_policy
def run_finetuning(build_model, train_dataset, *, loss, metrics=None, weighted_metrics=None,
                   epochs=3, steps_per_epoch=None, learning_rate=2e-5, warmup_ratio=0.1,
                   weight_decay=0.01, eval_dataset=None, output_dir=None, strategy=None,
                   mixed_precision="off", jit_compile="auto", seed=0, callbacks=(), verbose=1):
    """Compiles `build_model()` with BERT's optimizer and fits it.

    Args:
        build_model: `fn() -> keras.Model`, called inside the strategy scope (load the
            checkpoint there, e.g. `lambda: build_classifier(load_checkpoint(path), 2)`).
        train_dataset: finite `tf.data.Dataset` of `(features, labels[, sample_weights])`.
        loss: Keras loss (or dict of losses per output).
        metrics, weighted_metrics: Keras metrics for `compile`.
        epochs: passes over `train_dataset`.
        steps_per_epoch: default: the dataset's length.
        learning_rate: peak learning rate (BERT fine-tuning: 2e-5 .. 5e-5).
        warmup_ratio: share of the steps spent warming up.
        weight_decay: decoupled weight decay (not on LayerNorm and biases).
        eval_dataset: evaluated after every epoch (`val_*` in the history).
        output_dir: if given (chief only), the model is saved as `output_dir/model.keras`.
        strategy: a `tf.distribute.Strategy` or `get_strategy` name (default "auto").
        mixed_precision: "off", "bf16" or "fp16".
        jit_compile: "auto", "on" or "off".
        seed: seed for the new head's weights and dropout.
        callbacks: extra Keras callbacks.
        verbose: Keras verbosity.

    Returns:
        `(model, history)`.

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
    history = model.fit(train_dataset.repeat(), epochs=epochs, steps_per_epoch=steps_per_epoch,
                        validation_data=eval_dataset, callbacks=list(callbacks), verbose=verbose)
    if output_dir and is_chief(strategy):
        os.makedirs(output_dir, exist_ok=True)
        model.save(os.path.join(output_dir, "model.keras"))
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


def token_classification_metrics(labels, logits, weights, label_names, outside="O"):
    """Token accuracy and micro F1 over the non-`outside` labels, on first word pieces.

    Args:
        labels: int `[n, seq]`; logits: float `[n, seq, labels]`; weights: `[n, seq]`
            (1 on the first piece of each word).
        label_names: the label vocabulary.
        outside: the label that marks "no entity".

    Returns:
        dict with `accuracy` and `f1` (a word counts when its label is right; F1 over
        words whose gold or predicted label is not `outside`).
    """
    mask = np.asarray(weights) > 0
    gold = np.asarray(labels)[mask]
    predicted = np.asarray(logits).argmax(-1)[mask]
    outside_id = label_names.index(outside) if outside in label_names else -1
    tp = np.sum((predicted == gold) & (gold != outside_id))
    precision = tp / max(1, np.sum(predicted != outside_id))
    recall = tp / max(1, np.sum(gold != outside_id))
    f1 = 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)
    return {"accuracy": float(np.mean(predicted == gold)), "f1": float(f1)}


def _collect(dataset, index):
    parts = [batch[index] for batch in dataset]
    if isinstance(parts[0], dict):
        return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}
    return np.concatenate([np.asarray(p) for p in parts])


def finetune_task(task, checkpoint, train_file, eval_file=None, *, text_a="sentence", text_b=None,
                  label="label", labels=None, seq_length=128, batch_size=32, epochs=3,
                  learning_rate=3e-5, doc_stride=128, max_query_length=64, output_dir=None,
                  strategy=None, mixed_precision="off", jit_compile="auto", seed=0, verbose=1):
    """Fine-tunes a checkpoint on one of the standard tasks and evaluates it.

    Args:
        task: "classification", "pair_classification" (needs `text_b`),
            "token_classification" (CoNLL files) or "squad" (SQuAD v1.1/v2.0 JSON).
        checkpoint: any checkpoint `keras_bert.load_checkpoint` reads; its vocab.txt is used.
        train_file, eval_file: data files.
        text_a, text_b, label, labels: column names / label vocabulary (classification).
        seq_length, batch_size, epochs, learning_rate: as usual.
        doc_stride, max_query_length: SQuAD windowing.
        output_dir, strategy, mixed_precision, jit_compile, seed, verbose: see `run_finetuning`.

    Returns:
        dict: `model`, `history`, and `metrics` on `eval_file` (classification: accuracy,
        macro_f1, majority_baseline; token classification: accuracy, f1; SQuAD:
        exact_match, f1), empty without `eval_file`.

    Example:
        >>> result = finetune_task("classification", "minilm/", "train.csv", "dev.csv",
        ...                        labels=["neg", "pos"], epochs=2)
        >>> result["metrics"]["accuracy"]
    """
    from keras_bert.checkpoints import load_checkpoint
    from keras_bert.models.builders import (build_classifier, build_span_labeler,
                                            build_token_classifier)
    from keras_bert.text.preprocessor import Preprocessor
    from keras_bert.text.tokenizer import Tokenizer

    if task not in TASKS:
        raise ValueError(f"Unknown task {task!r}; expected one of {TASKS}.")
    if task == "pair_classification" and not text_b:
        raise ValueError("task 'pair_classification' needs text_b (the second text's column).")
    probe = load_checkpoint(checkpoint, model="encoder")
    vocab_file = getattr(probe, "vocab_file", None)
    if not vocab_file:
        raise ValueError(f"{checkpoint} has no vocab.txt next to it; fine-tuning needs the "
                         "checkpoint's own vocabulary.")
    lower_case = "uncased" in os.fspath(checkpoint).lower() or _vocab_is_lowercase(probe.vocab_file)
    tokenizer = Tokenizer(vocab_file, lower_case=lower_case)
    del probe
    common = dict(epochs=epochs, learning_rate=learning_rate, output_dir=output_dir,
                  strategy=strategy, mixed_precision=mixed_precision, jit_compile=jit_compile,
                  seed=seed, verbose=verbose)
    scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    if task in ("classification", "pair_classification"):
        from keras_bert.data.classification import classification_dataset

        preprocessor = Preprocessor(tokenizer, seq_length)
        read = dict(text_a=text_a, text_b=text_b if task == "pair_classification" else None,
                    label=label, batch_size=batch_size)
        train, labels = classification_dataset(train_file, preprocessor, labels=labels, seed=seed, **read)
        evaluation = None
        if eval_file:
            evaluation, _ = classification_dataset(eval_file, preprocessor, labels=labels,
                                                   shuffle=False, **read)
        num_classes = len(labels) if labels else int(max(_collect(train, 1))) + 1
        model, history = run_finetuning(
            lambda: build_classifier(load_checkpoint(checkpoint), num_classes), train, loss=scce,
            metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
            eval_dataset=evaluation, **common)
        metrics = {}
        if evaluation is not None:
            metrics = classification_metrics(_collect(evaluation, 1),
                                             model.predict(evaluation, verbose=0))
        return {"model": model, "history": history, "metrics": metrics, "labels": labels}

    if task == "token_classification":
        from keras_bert.data.token_classification import token_classification_dataset

        train, labels = token_classification_dataset(train_file, tokenizer, seq_length, labels=labels,
                                                     batch_size=batch_size, seed=seed)
        evaluation = None
        if eval_file:
            evaluation, _ = token_classification_dataset(eval_file, tokenizer, seq_length, labels=labels,
                                                         batch_size=batch_size, shuffle=False)
        model, history = run_finetuning(
            lambda: build_token_classifier(load_checkpoint(checkpoint), len(labels)), train,
            loss=scce, weighted_metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
            eval_dataset=evaluation, **common)
        metrics = {}
        if evaluation is not None:
            metrics = token_classification_metrics(
                _collect(evaluation, 1), model.predict(evaluation, verbose=0),
                _collect(evaluation, 2), labels)
        return {"model": model, "history": history, "metrics": metrics, "labels": labels}

    from keras_bert.data.squad import squad_dataset, squad_examples, squad_features, squad_postprocess
    from keras_bert.data.squad_metrics import squad_evaluate

    def span_targets(x, y):
        return x, {"start_logits": y["start_positions"], "end_logits": y["end_positions"]}

    window = dict(seq_length=seq_length, doc_stride=doc_stride, max_query_length=max_query_length)
    train_features = squad_features(squad_examples(train_file), tokenizer, **window)
    train = squad_dataset(train_features, batch_size=batch_size, seed=seed).map(span_targets)
    model, history = run_finetuning(
        lambda: build_span_labeler(load_checkpoint(checkpoint)), train,
        loss={"start_logits": scce, "end_logits": scce}, **common)
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
    return {"model": model, "history": history, "metrics": metrics}


def _vocab_is_lowercase(vocab_file):
    """An uncased vocab has (almost) no capitalized whole words."""
    with open(vocab_file, encoding="utf-8") as f:
        words = [line.strip() for line in f if line.strip().isalpha()]
    if not words:
        return True
    return sum(w[0].isupper() for w in words) < 0.01 * len(words)
