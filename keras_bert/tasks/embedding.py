"""Sentence embeddings: (anchor, positive) pairs, in-batch negatives; retrieval and Spearman scores."""

import dataclasses

import numpy as np

from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.regression import explain_correlation, regression_metrics
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, freeze_pooler

RECALL_AT = (1, 5, 10)


def retrieval_metrics(anchors, positives):
    """Recall@k and MRR of finding each anchor's own positive among all positives by cosine.

    Args:
        anchors, positives: float `[n, dim]` embeddings; row i of each is a pair.

    Returns:
        dict with `recall@1`, `recall@5`, `recall@10`, `mrr` and `random_mrr` (the MRR of a
        random ranking: the baseline).

    Example:
        >>> retrieval_metrics(np.eye(3), np.eye(3))["mrr"]
        1.0
    """
    similarities = _unit(np.asarray(anchors, np.float64)) @ _unit(np.asarray(positives, np.float64)).T  # (n, n)
    own = np.diag(similarities)[:, np.newaxis]
    ranks = 1 + np.sum(similarities > own, axis=1)  # ties count in the anchor's favour
    metrics = {f"recall@{k}": float(np.mean(ranks <= k)) for k in RECALL_AT}
    return dict(metrics, mrr=float(np.mean(1.0 / ranks)), random_mrr=float(np.mean(1.0 / np.arange(1, len(ranks) + 1))))


@dataclasses.dataclass(frozen=True)
class EmbeddingOptions(TaskOptions):
    """`EmbeddingTask`'s options (see its Args)."""

    text_a: str = option("anchor", "column of the anchor text")
    text_b: str = option("positive", "column of the positive text")
    label: str = option("score", "column of a similarity score in the eval file (Spearman; used where present)",
                        identity=False)
    pooling: str = option(None, "mean, cls, max, mean_sqrt_len_tokens or a comma-separated list "
                          "(default: the checkpoint's sentence-transformers pooling, else mean)")
    normalize: bool = option(None, "L2-normalize the embeddings (default: the checkpoint's, else on)")
    scale: float = option(20.0, "similarity scale of the in-batch loss (default 20)")

    def check(self):
        from keras_bert.layers.sentence_pooling import pooling_modes

        for name in ("text_a", "text_b"):
            if not getattr(self, name):
                raise ValueError(f"{name}={getattr(self, name)!r} (--{name}) must name a column of the pairs file.")
        if self.pooling is not None:
            self._set("pooling", ",".join(pooling_modes(self.pooling)))
        if not self.scale > 0:
            raise ValueError(f"scale={self.scale!r} (--scale) must be positive (sentence-transformers uses 20).")


class EmbeddingServing(TaskServing):
    """A sentence embedder's serving: `embeddings` everywhere (ids and text in SavedModel, TFLite and ONNX)."""

    name = "embedding"
    Options = EmbeddingOptions
    tflite_signatures = ("embed",)
    single_text_output = ("embedder", "embeddings")  # MediaPipe's TextEmbedder

    @classmethod
    def check_serving(cls, model, task_config):
        super().check_serving(model, task_config)  # the options, checked
        if len(model.output.shape) != 2:
            raise ValueError(f"Model {model.name!r} is an 'embedding' model with outputs of shape "
                             f"{model.output.shape}; an embedder outputs [batch, dim].")

    def serving_outputs(self, outputs):
        return {"embeddings": outputs}

    def text_signatures(self):
        """`embed`: `text_a` `[batch]` strings -> `embeddings` `[batch, dim]`."""
        import tensorflow as tf

        def embed(text_a):  # the function's name is the TFLite signature's
            return {"embeddings": self.serve_text(text_a, tf.zeros([0], tf.string))["embeddings"]}

        return {"embed": tf.function(embed, autograph=False,
                                     input_signature=[tf.TensorSpec([None], tf.string, name="text_a")])}


class EmbeddingTask(Task):
    """Texts -> sentence embeddings (encoder + `SentencePooling`), as sentence-transformers computes them.

    Trained on `(anchor, positive)` pairs with in-batch negatives
    (`MultipleNegativesRankingLoss`: cross-entropy over `scale` x cosine similarities; every
    other positive of the batch is a negative). Evaluated by retrieval (recall@1/5/10 and MRR of
    each anchor's positive among all positives of the evaluation file) and, when that file has
    the `label` column (a similarity score), by the Spearman correlation of cosine and score.
    Served as `embeddings` `[batch, dim]`: the SavedModel's `serving_default` and `embed` (raw
    text), TFLite's text model (`embed`) and ONNX.

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        text_a, text_b: the pair columns (anchor, positive).
        label: column of a similarity score in the evaluation file (used where present).
        pooling: "mean", "cls", "max", "mean_sqrt_len_tokens" or several, comma-separated
            (default: the checkpoint's sentence-transformers pooling, else "mean").
        normalize: L2-normalize the embeddings (default: the checkpoint's, else True).
        scale: the loss's similarity scale (sentence-transformers' default 20).

    Example:
        >>> task = EmbeddingTask(tokenizer, 128, 32, text_a="query", text_b="answer")
        >>> train = task.read("pairs.tsv", training=True)
    """

    name = "embedding"
    Options = EmbeddingOptions
    serving = EmbeddingServing
    # Each anchor's negatives are the other pairs' positives: a lone pair has none and a loss of 0.
    MIN_BATCH_SIZE, MIN_BATCH_REASON = 2, "pairs (in-batch negatives: a lone pair has no negative, so its loss is 0)"

    @classmethod
    def checkpoint_options(cls, contents):
        """A sentence-transformers checkpoint's pooling and normalization (else mean pooling, normalized)."""
        found = contents.embedding or {}
        return {"pooling": found.get("pooling", "mean"), "normalize": found.get("normalize", True)}

    # ----- data

    def read(self, path, training):
        """Batches of interleaved pairs `[a0, p0, a1, p1, ...]` (ids `[2 * pairs, longest]`), dummy targets."""
        import tensorflow as tf

        from keras_bert.data.classification import check_text_room, read_text_rows
        from keras_bert.text.no_autograph import no_autograph
        from keras_bert.text.preprocessor import Preprocessor

        check_text_room(self.seq_length)
        anchors, positives, _ = read_text_rows(path, self.text_a, self.text_b, None)
        if not training:
            self._scores(path)  # a bad score is refused now, not after training
        if len(anchors) < 2:
            raise ValueError(f"{path} has {len(anchors)} pair; " + (
                "in-batch negatives need at least 2 pairs." if training else "retrieval ranks each anchor's "
                "positive among the file's positives: an evaluation file needs at least 2 pairs (one scores 1.0)."))
        preprocessor = Preprocessor(self.tokenizer, self.seq_length)
        dataset = tf.data.Dataset.from_tensor_slices((anchors, positives))
        if training:
            dataset = dataset.shuffle(len(anchors), seed=self.seed, reshuffle_each_iteration=True)

        def pack(batch_anchors, batch_positives):
            texts = tf.reshape(tf.stack([batch_anchors, batch_positives], axis=1), [-1])  # (2 * pairs,)
            features = preprocessor(texts)
            longest = tf.reduce_max(tf.reduce_sum(features["input_mask"], axis=1))
            return {k: v[:, :longest] for k, v in features.items()}, tf.zeros(tf.shape(texts), tf.float32)

        # A last training batch of one pair has no negative (loss 0): that step would train nothing.
        lone = training and len(anchors) % self.batch_size == 1
        return dataset.batch(self.batch_size, drop_remainder=lone).map(
            no_autograph(pack), num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)

    def embed(self, model, texts):
        """`[n, dim]` embeddings of `texts` (a list of str) by `model`, in batches."""
        from keras_bert.data.classification import text_dataset
        from keras_bert.text.preprocessor import Preprocessor

        dataset = text_dataset(Preprocessor(self.tokenizer, self.seq_length), list(texts), None,
                               np.zeros(len(texts), np.float32), self.batch_size, shuffle=False,
                               dynamic_padding=True)
        return model.predict(dataset, verbose=0)

    # ----- model

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_embedder

        # Pooled from the token vectors: the pooler gets no gradient (frozen, so Keras does not warn on stderr).
        return freeze_pooler(build_embedder(encoder, self.pooling or "mean",
                                            True if self.normalize is None else self.normalize, task_config=task_config))

    def compile_kwargs(self):
        from keras_bert.models.multiple_negatives_ranking_loss import MultipleNegativesRankingLoss

        return {"loss": MultipleNegativesRankingLoss(self.scale)}

    def evaluate(self, model, evaluation, path):
        from keras_bert.data.classification import read_text_rows

        anchors, positives, _ = read_text_rows(path, self.text_a, self.text_b, None)
        a, p = self.embed(model, anchors), self.embed(model, positives)
        metrics = retrieval_metrics(a, p)
        scores = self._scores(path)
        if scores is not None:
            cosine = np.sum(_unit(a) * _unit(p), axis=1)
            metrics["spearman_cosine"] = regression_metrics(scores, cosine)["spearman"]
        return metrics

    def _scores(self, path):
        """The eval file's similarity scores (float `[n]`), or None when it has no `label` column
        (only the default, `score`, may be missing: a column the user named must be there)."""
        from keras_bert.data.classification import read_text_rows
        from keras_bert.data.table_rows import read_table_rows
        from keras_bert.tasks.regression import _targets

        columns = list(read_table_rows(path)[0])
        if self.label and self.label not in columns and self.label != type(self).options()["label"][1]:
            raise ValueError(f"Column {self.label!r} (--label) not found in {path!r}; available columns: "
                             f"{columns}. Pass --label one of them, or leave it out (no Spearman score).")
        if not self.label or self.label not in columns:
            return None
        lines = []
        values = read_text_rows(path, self.text_a, self.text_b, self.label, lines=lines)[2]
        return _targets(path, self.label, values, self.name, lines)[:, 0]

    def explain_metric(self, name, value):
        if name == "spearman_cosine":
            return explain_correlation("spearman", "the cosine similarities")
        return super().explain_metric(name, value)



def _unit(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)

