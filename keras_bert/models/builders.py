"""Functional-API builders: the encoder, the pretrainer and the fine-tuning models."""

import keras

from keras_bert.layers.sentence_pooling import SentencePooling
from keras_bert.models.bert_encoder import BertEncoder, as_config, encoder_inputs
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel


def _encoder(encoder, dtype=None):
    if isinstance(encoder, BertEncoder):
        return encoder
    return BertEncoder(as_config(encoder), dtype=dtype)


def _head_dense(units, encoder, name):
    if isinstance(units, bool) or not float(units).is_integer() or units < 1:
        raise ValueError(f"{name}: the number of classes/labels must be a positive integer, got {units!r}.")
    return keras.layers.Dense(
        units, kernel_initializer=keras.initializers.TruncatedNormal(
            stddev=encoder.config.initializer_range), dtype=encoder.layer_dtype, name=name)


def _dropout(encoder, dropout_rate):
    rate = encoder.config.dropout_rate if dropout_rate is None else dropout_rate
    return keras.layers.Dropout(rate, name="head_dropout")


def build_encoder(config, dtype=None):
    """A `BertEncoder` for a `BertConfig`, a preset name or a config dict.

    Example:
        >>> encoder = build_encoder("bert_tiny_uncased")
        >>> encoder.count_params()
        4385920
    """
    return BertEncoder(as_config(config), dtype=dtype)


def build_pretrainer(encoder, dtype=None):
    """A `BertPretrainer` (MLM + NSP heads, BERT's loss) around an encoder or a config.

    Args:
        encoder: a `BertEncoder`, `BertConfig`, preset name or config dict.
        dtype: optional dtype policy when the encoder is built here.

    Example:
        >>> model = build_pretrainer("bert_tiny_uncased")
        >>> sorted(model.output.keys())
        ['mlm_logits', 'nsp_logits']
    """
    encoder = _encoder(encoder, dtype)
    return BertPretrainer(encoder.config, encoder=encoder, dtype=encoder.layer_dtype)


def build_classifier(encoder, num_classes, dropout_rate=None, name="bert_classifier",
                     task="classification", task_config=None):
    """Sentence(-pair) classifier: dropout + dense on the pooled `[CLS]` output; outputs logits.

    Args:
        encoder: a `BertEncoder`, `BertConfig`, preset name or config dict.
        num_classes: number of outputs (classes, labels, or 1 for a score).
        dropout_rate: dropout before the classifier (default: the config's).
        task, task_config: what the model is (see `BertTaskModel`); e.g. `task_config=
            {"labels": [...]}`. Other tasks with this head (regression, multi-label) name themselves.

    Example:
        >>> model = build_classifier("bert_tiny_uncased", num_classes=3)
        >>> model.compile(optimizer="adam",
        ...               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    """
    encoder = _encoder(encoder)
    inputs = encoder_inputs()
    pooled = encoder(inputs)["pooled_output"]
    logits = _head_dense(num_classes, encoder, "classifier")(_dropout(encoder, dropout_rate)(pooled))
    return BertTaskModel(inputs, logits, name=name, task=task, task_config=task_config)


def build_token_classifier(encoder, num_labels, dropout_rate=None, name="bert_token_classifier",
                           task_config=None):
    """Per-token classifier (e.g. NER): logits `[batch, seq, num_labels]`; task "token_classification".

    Example:
        >>> model = build_token_classifier("bert_tiny_uncased", num_labels=9)
    """
    encoder = _encoder(encoder)
    inputs = encoder_inputs()
    sequence = encoder(inputs)["sequence_output"]
    logits = _head_dense(num_labels, encoder, "token_classifier")(_dropout(encoder, dropout_rate)(sequence))
    return BertTaskModel(inputs, logits, name=name, task="token_classification", task_config=task_config)


def build_span_labeler(encoder, name="bert_span_labeler", task_config=None):
    """SQuAD span labeler: `start_logits` and `end_logits`, each `[batch, seq]`; task "squad".

    Example:
        >>> model = build_span_labeler("bert_tiny_uncased")
        >>> sorted(model.output.keys())
        ['end_logits', 'start_logits']
    """
    encoder = _encoder(encoder)
    inputs = encoder_inputs()
    sequence = encoder(inputs)["sequence_output"]
    logits = _head_dense(2, encoder, "span_labeler")(sequence)  # (batch, seq, 2)
    start_logits, end_logits = logits[..., 0], logits[..., 1]  # (batch, seq) each
    return BertTaskModel(inputs, {"start_logits": start_logits, "end_logits": end_logits}, name=name,
                         task="squad", task_config=task_config)


def build_embedder(encoder, pooling="mean", normalize=True, name="bert_embedder", task_config=None):
    """Sentence embedder: the encoder's token vectors pooled over the mask (`SentencePooling`),
    optionally L2-normalized; output `embeddings` `[batch, hidden * modes]`; task "embedding".

    Example:
        >>> model = build_embedder("bert_tiny_uncased", pooling="mean", normalize=True)
        >>> model.output.shape
        (None, 128)
    """
    encoder = _encoder(encoder)
    inputs = encoder_inputs()
    sequence = encoder(inputs)["sequence_output"]
    embeddings = SentencePooling(pooling, normalize, name="embeddings")(sequence, inputs["input_mask"])
    task_config = dict(task_config or {}, pooling=pooling if isinstance(pooling, str) else ",".join(pooling),
                       normalize=bool(normalize))
    return BertTaskModel(inputs, embeddings, name=name, task="embedding", task_config=task_config)
