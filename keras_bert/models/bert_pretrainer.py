"""The BERT pretraining model: encoder + masked-LM head + next-sentence head, with its loss."""

import keras
from keras import ops

from keras_bert.layers.masked_lm_head import MaskedLMHead
from keras_bert.layers.next_sentence_head import NextSentenceHead
from keras_bert.models.bert_encoder import BertEncoder, as_config, encoder_inputs


@keras.saving.register_keras_serializable(package="keras_bert")
class BertPretrainer(keras.Model):
    """BERT with its two pretraining heads; `fit` it on `keras_bert.data.pretraining_dataset`.

    Inputs: the encoder's three inputs plus `masked_lm_positions` int32 `[b, p]`.
    Outputs: `mlm_logits` `[b, p, vocab]` and `nsp_logits` `[b, 2]` (class 0: B
    follows A). Labels (`y` in `fit`): `masked_lm_ids` `[b, p]`,
    `masked_lm_weights` `[b, p]` (0 on padded prediction slots) and
    `next_sentence_labels` `[b]` (optional: without it the NSP loss is left out).

    Loss: mean MLM cross-entropy over the real masked positions plus mean NSP
    cross-entropy. Like Google's BERT, each replica averages over its own
    masked positions and the replicas' gradients are averaged.

    Args:
        config: a `BertConfig`, a preset name or a config dict.
        encoder: optional `BertEncoder` to reuse (e.g. with loaded weights).
        dtype: optional dtype policy for every layer.

    Example:
        >>> model = BertPretrainer("bert_tiny_uncased")
        >>> model.compile(optimizer="adam")
    """

    def __init__(self, config, encoder=None, dtype=None, name="bert_pretrainer", **kwargs):
        config = as_config(config)
        if encoder is None:
            encoder = BertEncoder(config, dtype=dtype)
        elif encoder.config != config:
            raise ValueError(f"encoder.config {encoder.config} differs from config {config}.")
        inputs = encoder_inputs()
        inputs["masked_lm_positions"] = keras.Input(shape=(None,), dtype="int32",
                                                    name="masked_lm_positions")
        outputs = encoder({key: inputs[key] for key in ("input_word_ids", "input_mask", "input_type_ids")})
        mlm_head = MaskedLMHead(
            vocab_size=config.vocab_size, hidden_size=config.hidden_size,
            hidden_act=config.hidden_act, initializer_range=config.initializer_range,
            layer_norm_eps=config.layer_norm_eps, embedding_layer=encoder.embeddings,
            dtype=dtype, name="mlm_head")
        mlm_logits = mlm_head(outputs["sequence_output"], inputs["masked_lm_positions"])
        nsp_logits = NextSentenceHead(config.initializer_range, dtype=dtype, name="nsp_head")(
            outputs["pooled_output"])
        super().__init__(inputs=inputs, outputs={"mlm_logits": mlm_logits, "nsp_logits": nsp_logits},
                         name=name, **kwargs)
        self.config = config
        self.layer_dtype = encoder.layer_dtype
        self.encoder = encoder
        self.mlm_loss_tracker = keras.metrics.Mean(name="mlm_loss")
        self.nsp_loss_tracker = keras.metrics.Mean(name="nsp_loss")
        # Weighted mean of "the true token's logit is the largest": the same number as
        # SparseCategoricalAccuracy (except on exact ties) without its ArgMax over the whole
        # vocab, ~26 ms of a 500 ms CPU training step (tools/bench_train.py profile).
        self.mlm_accuracy = keras.metrics.Mean(name="mlm_accuracy")
        self.nsp_accuracy = keras.metrics.SparseCategoricalAccuracy(name="nsp_accuracy")
        self._mlm_loss_fn = keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction="mean_with_sample_weight")
        self._nsp_loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def get_config(self):
        return {"config": self.config.to_dict(), "dtype": self.layer_dtype,
                "name": self.name, "trainable": self.trainable}

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        mlm_logits = ops.cast(y_pred["mlm_logits"], "float32")
        nsp_logits = ops.cast(y_pred["nsp_logits"], "float32")
        weights = ops.cast(y["masked_lm_weights"], "float32")
        # Each loss object scales itself for tf.distribute (1 / replicas).
        loss = self._mlm_loss_fn(y["masked_lm_ids"], mlm_logits, sample_weight=weights)
        if "next_sentence_labels" in y:  # absent when the data has no NSP (RoBERTa-style)
            loss = loss + self._nsp_loss_fn(ops.reshape(y["next_sentence_labels"], (-1,)), nsp_logits)
        for extra in self.losses:  # regularizers, if any
            loss = loss + ops.sum(ops.cast(extra, "float32"))  # as Keras's Trainer sums them
        return loss

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        mlm_logits = ops.cast(y_pred["mlm_logits"], "float32")
        nsp_logits = ops.cast(y_pred["nsp_logits"], "float32")
        weights = ops.cast(y["masked_lm_weights"], "float32")
        # Labels cast to float32 as the Loss object casts them in compute_loss: the graphs are
        # then identical and XLA computes the vocab-wide cross-entropy once, not twice.
        per_slot = keras.losses.sparse_categorical_crossentropy(
            ops.cast(y["masked_lm_ids"], "float32"), mlm_logits, from_logits=True)
        self.mlm_loss_tracker.update_state(
            ops.sum(per_slot * weights) / ops.maximum(ops.sum(weights), 1e-5))
        true_logit = ops.take_along_axis(
            mlm_logits, ops.expand_dims(ops.cast(y["masked_lm_ids"], "int32"), -1), axis=-1)[..., 0]
        correct = ops.cast(true_logit >= ops.max(mlm_logits, axis=-1), "float32")  # [b, p]
        self.mlm_accuracy.update_state(correct, sample_weight=weights)
        if "next_sentence_labels" in y:
            nsp_labels = ops.reshape(y["next_sentence_labels"], (-1,))
            self.nsp_loss_tracker.update_state(ops.mean(
                keras.losses.sparse_categorical_crossentropy(nsp_labels, nsp_logits, from_logits=True)))
            self.nsp_accuracy.update_state(nsp_labels, nsp_logits)
        return super().compute_metrics(x, y, y_pred, sample_weight)
