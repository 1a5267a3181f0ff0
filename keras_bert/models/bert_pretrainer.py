"""The BERT pretraining model: encoder + masked-LM head + next-sentence head, with its loss."""

import keras
from keras import ops

from keras_bert.compat import in_xla_context
from keras_bert.layers.next_sentence_head import NextSentenceHead
from keras_bert.config import BertConfig
from keras_bert.models.bert_encoder import EncoderTextConfig, as_config, encoder_inputs
from keras_bert.models.families import FAMILIES, build_family_encoder, family_of


@keras.saving.register_keras_serializable(package="keras_bert")
class BertPretrainer(EncoderTextConfig, keras.Model):
    """BERT with its two pretraining heads; `fit` it on `keras_bert.data.pretraining_dataset`.

    Inputs: the encoder's three inputs plus `masked_lm_positions` int32 `[b, p]`.
    Outputs: `mlm_logits` `[b, p, vocab]` and `nsp_logits` `[b, 2]` (class 0: B
    follows A). Labels (`y` in `fit`): `masked_lm_ids` `[b, p]`,
    `masked_lm_weights` `[b, p]` (0 on padded prediction slots) and
    `next_sentence_labels` `[b]` (optional: without it the NSP loss is left out).

    Loss: mean MLM cross-entropy over the real masked positions plus mean NSP
    cross-entropy. Like Google's BERT, each replica averages over its own
    masked positions and the replicas' gradients are averaged.

    With `packed=True` (rows of several examples from `pretraining_dataset(...,
    pack_sequences=True)`) the encoder also takes `input_example_ids` and
    `input_position_ids`, the model takes `next_sentence_positions` `[b, k]` (each
    example's `[CLS]`), `nsp_logits` is `[b, k, 2]`, and the NSP labels
    `next_sentence_labels` `[b, k]` come with `next_sentence_weights` `[b, k]` (0 on
    unused slots): the NSP loss is the mean over real examples.

    Args:
        config: a `BertConfig`, a preset name or a config dict.
        encoder: optional `BertEncoder` to reuse (e.g. with loaded weights).
        dtype: optional dtype policy for every layer.
        packed: take packed rows (see above); the weights are the same either way.
        text_config: the text contract of a new encoder (see `BertEncoder`); a given
            encoder keeps its own. `model.text_config` is the encoder's.
        next_sentence: whether the model has the next-sentence head (None: as its family's
            pretraining has it, `families.ModelFamily.next_sentence`: BERT yes, RoBERTa no). Without
            it the outputs are `mlm_logits` only and the loss is masked LM alone.
        family: the name of `config`'s family where `config` is a dict (a saved model's `get_config`):
            its config class reads it (None: BERT's). The masked-LM head is the family's
            (`ModelFamily.build_masked_lm_head`: ModernBERT's reads its encoder's prediction head).

    Example:
        >>> model = BertPretrainer("bert_tiny_uncased")
        >>> model.compile(optimizer="adam")
    """

    def __init__(self, config, encoder=None, dtype=None, name="bert_pretrainer", packed=False,
                 text_config=None, next_sentence=None, family=None, **kwargs):
        config = _family_config(config, family)
        next_sentence = family_of(config).next_sentence if next_sentence is None else bool(next_sentence)
        if encoder is None:
            encoder = build_family_encoder(config, dtype=dtype, text_config=text_config,
                                           **({"packed": packed} if packed else {}))
        elif encoder.config != config:
            raise ValueError(f"encoder.config {encoder.config} differs from config {config}.")
        elif getattr(encoder, "packed", False) != packed:
            raise ValueError(f"encoder.packed={encoder.packed} but packed={packed}; build the "
                             f"encoder with BertEncoder(config, packed={packed}).")
        inputs = encoder_inputs(packed)
        outputs = encoder(dict(inputs))
        inputs["masked_lm_positions"] = keras.Input(shape=(None,), dtype="int32",
                                                    name="masked_lm_positions")
        mlm_head = family_of(config).build_masked_lm_head(config, encoder, dtype)
        mlm_logits = mlm_head(outputs["sequence_output"], inputs["masked_lm_positions"])
        pooled = outputs["pooled_output"]
        if packed and next_sentence and not any(layer.name == "pooler" for layer in encoder.layers):
            raise ValueError(f"{type(encoder).__name__} has no pooler to read each packed example's [CLS] for the "
                             "next-sentence head: pass next_sentence=False (masked LM only) or packed=False.")
        if packed and next_sentence:  # each example's own [CLS], through the encoder's pooler
            inputs["next_sentence_positions"] = keras.Input(shape=(None,), dtype="int32",
                                                            name="next_sentence_positions")
            cls = ops.take_along_axis(outputs["sequence_output"], ops.expand_dims(
                inputs["next_sentence_positions"], -1), axis=1)  # (batch, examples, hidden)
            pooled = encoder.get_layer("pooler").dense(cls)
        model_outputs = {"mlm_logits": mlm_logits}
        if next_sentence:
            model_outputs["nsp_logits"] = NextSentenceHead(config.initializer_range, dtype=dtype, name="nsp_head")(pooled)
        super().__init__(inputs=inputs, outputs=model_outputs, name=name, **kwargs)
        self.config = config
        self.next_sentence = next_sentence
        self.packed = bool(packed)
        self.layer_dtype = encoder.layer_dtype
        self.encoder = encoder
        self._mlm_head = mlm_head
        self._nsp_head = self.get_layer("nsp_head") if next_sentence else None
        self.mlm_loss_tracker = keras.metrics.Mean(name="mlm_loss")
        self.nsp_loss_tracker = keras.metrics.Mean(name="nsp_loss")
        # Weighted mean of "the true token's logit is the largest": the same number as
        # SparseCategoricalAccuracy (except on exact ties) without its ArgMax over the whole
        # vocab, ~26 ms of a 500 ms CPU training step (tools/bench_train.py profile).
        self.mlm_accuracy = keras.metrics.Mean(name="mlm_accuracy")
        self.nsp_accuracy = keras.metrics.SparseCategoricalAccuracy(name="nsp_accuracy")
        self._mlm_loss_fn = _VocabCrossEntropy(name="mlm_cross_entropy", reduction="mean_with_sample_weight")
        self._nsp_loss_fn = keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction="mean_with_sample_weight" if packed else "sum_over_batch_size")

    def call(self, inputs, training=None):
        """The graph built in `__init__`, except that the last layer computes only the rows the
        heads read: each example's `[CLS]` and the masked positions (`encoder.sequence_output_at`).
        The same outputs and gradients (to float rounding), with that layer's queries, attention
        output and feed-forward run on 1 + p rows instead of all: a 4-layer step at seq 128 with
        20 predictions runs ~1.16x faster (tools/bench_train.py, XLA on a 2-core CPU)."""
        inputs = dict(inputs)
        if not hasattr(self.encoder, "sequence_output_at"):  # a family encoder without it: the whole graph, on the
            # inputs it takes (packed rows of a model without NSP also carry `next_sentence_positions`)
            return super().call({name: inputs[name] for name in self.input}, training=training)
        masked = ops.cast(inputs["masked_lm_positions"], "int32")
        batch, predictions = ops.shape(masked)[0], ops.shape(masked)[1]
        if self.packed and self.next_sentence:
            cls = ops.cast(inputs["next_sentence_positions"], "int32")  # (batch, examples)
        else:
            cls = ops.zeros((batch, 1), "int32")
        examples = ops.shape(cls)[1]
        rows = self.encoder.sequence_output_at(inputs, ops.concatenate([cls, masked], axis=1))  # (batch, examples + p, hidden)
        mlm_logits = self._mlm_head(rows, ops.broadcast_to(
            ops.arange(examples, examples + predictions, dtype="int32"), (batch, predictions)))
        if not self.next_sentence:
            return {"mlm_logits": mlm_logits}
        pooler = self.encoder.get_layer("pooler")
        pooled = pooler.dense(rows[:, :examples]) if self.packed else pooler(rows)
        return {"mlm_logits": mlm_logits, "nsp_logits": self._nsp_head(pooled)}

    def get_config(self):
        # The encoder is rebuilt from `config`; its contract (vocab: the encoder's asset) goes along.
        return {"config": self.config.to_dict(), "dtype": self.layer_dtype,
                "name": self.name, "trainable": self.trainable, "packed": self.packed,
                "text_config": self.encoder.get_config()["text_config"], "next_sentence": self.next_sentence,
                "family": family_of(self.config).name}

    def with_packing(self, packed):
        """This model with `packed` inputs (or without): a new `BertPretrainer`, same weights."""
        return self if packed == self.packed else self._rebuilt(packed, self.layer_dtype)

    def with_dtype(self, dtype):
        """This model rebuilt under the dtype policy `dtype` (e.g. "mixed_bfloat16"), same weights and text contract."""
        return self._rebuilt(self.packed, dtype)

    def _rebuilt(self, packed, dtype):
        model = BertPretrainer(self.config, dtype=dtype, name=self.name, packed=packed, next_sentence=self.next_sentence)
        model.set_weights(self.get_weights())
        model.text_config = self.text_config
        return model

    def _nsp_targets(self, y, nsp_logits):
        """NSP labels `[n]`, logits `[n, 2]` and weights (`None` unpacked: every row counts)."""
        labels = ops.reshape(y["next_sentence_labels"], (-1,))
        logits = ops.reshape(ops.cast(nsp_logits, "float32"), (-1, 2))
        if not self.packed:
            return labels, logits, None
        return labels, logits, ops.reshape(ops.cast(y["next_sentence_weights"], "float32"), (-1,))

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        mlm_logits = ops.cast(y_pred["mlm_logits"], "float32")
        weights = ops.cast(y["masked_lm_weights"], "float32")
        # Each loss object scales itself for tf.distribute (1 / replicas).
        loss = self._mlm_loss_fn(y["masked_lm_ids"], mlm_logits, sample_weight=weights)
        if "next_sentence_labels" in y and self.next_sentence:  # absent when the data has no NSP (RoBERTa-style)
            nsp_labels, nsp_logits, nsp_weights = self._nsp_targets(y, y_pred["nsp_logits"])
            loss = loss + self._nsp_loss_fn(nsp_labels, nsp_logits, sample_weight=nsp_weights)
        for extra in self.losses:  # regularizers, if any
            loss = loss + ops.sum(ops.cast(extra, "float32"))  # as Keras's Trainer sums them
        return loss

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        mlm_logits = ops.cast(y_pred["mlm_logits"], "float32")
        weights = ops.cast(y["masked_lm_weights"], "float32")
        # Labels cast to float32 as the Loss object casts them in compute_loss: the graphs are
        # then identical and XLA computes the vocab-wide cross-entropy once, not twice.
        per_slot = vocab_cross_entropy(ops.cast(y["masked_lm_ids"], "float32"), mlm_logits)
        self.mlm_loss_tracker.update_state(
            ops.sum(per_slot * weights) / ops.maximum(ops.sum(weights), 1e-5))
        true_logit = ops.take_along_axis(
            mlm_logits, ops.expand_dims(ops.cast(y["masked_lm_ids"], "int32"), -1), axis=-1)[..., 0]
        correct = ops.cast(true_logit >= ops.max(mlm_logits, axis=-1), "float32")  # [b, p]
        self.mlm_accuracy.update_state(correct, sample_weight=weights)
        if "next_sentence_labels" in y and self.next_sentence:
            nsp_labels, nsp_logits, nsp_weights = self._nsp_targets(y, y_pred["nsp_logits"])
            nsp_loss = keras.losses.sparse_categorical_crossentropy(nsp_labels, nsp_logits, from_logits=True)
            self.nsp_loss_tracker.update_state(ops.mean(nsp_loss) if nsp_weights is None else (
                ops.sum(nsp_loss * nsp_weights) / ops.maximum(ops.sum(nsp_weights), 1e-5)))
            self.nsp_accuracy.update_state(nsp_labels, nsp_logits, sample_weight=nsp_weights)
        results = super().compute_metrics(x, y, y_pred, sample_weight)
        if "next_sentence_labels" not in y or not self.next_sentence:  # MLM only: no NSP numbers (a constant 0 reads like a failure)
            nsp = {self.nsp_loss_tracker.name, self.nsp_accuracy.name}
            results = {name: value for name, value in results.items() if name not in nsp}
        return results


def vocab_cross_entropy(labels, logits):
    """Per-slot cross-entropy of masked-LM `logits` `[..., vocab]` at `labels` `[...]` (any dtype).

    Keras's sparse cross-entropy, except inside XLA on TensorFlow: there logsumexp minus the true
    token's logit (loss and gradient equal to ~2e-7 relative; tested to 1e-5) makes the
    pretraining step faster, as XLA lowers TF's fused op with an extra one-hot pass over the
    vocab. Without XLA TF's fused kernel is the faster one (the A/B numbers: docs/BENCHMARKS.md,
    train).
    """
    if keras.backend.backend() == "tensorflow" and in_xla_context():
        true_logit = ops.take_along_axis(
            logits, ops.expand_dims(ops.cast(labels, "int32"), -1), axis=-1)[..., 0]
        return ops.logsumexp(logits, axis=-1) - true_logit
    return keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)


class _VocabCrossEntropy(keras.losses.Loss):
    """`vocab_cross_entropy` as a Keras loss (its reduction scales for tf.distribute)."""

    def call(self, y_true, y_pred):
        return vocab_cross_entropy(y_true, y_pred)


def _family_config(config, family):
    """`config` as its family's config class: a config object, a BERT preset name, or a config dict (of
    `family`'s config class where a saved pretrainer names it, else BERT's)."""
    if isinstance(config, dict) and family is not None and FAMILIES[family].config_class is not BertConfig:
        return FAMILIES[family].config_class.from_dict(config)
    if any(isinstance(config, f.config_class) for f in FAMILIES.values()):
        return config
    return as_config(config)
