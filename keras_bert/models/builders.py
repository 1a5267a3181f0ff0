"""Functional-API builders: the encoder, the pretrainer and the fine-tuning models."""

import keras

from keras_bert.models.bert_encoder import BertEncoder, as_config
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.families import ENCODER_CLASSES, FAMILIES, build_family_encoder
from keras_bert.models.multiple_choice_head import MultipleChoiceHead
from keras_bert.models.sequence_head import SequenceHead
from keras_bert.models.span_head import SpanHead
from keras_bert.models.token_head import TokenHead


def _encoder(encoder, dtype=None):
    if isinstance(encoder, ENCODER_CLASSES):  # any family's encoder
        return encoder
    if isinstance(encoder, tuple(family.config_class for family in FAMILIES.values())):  # any family's config
        return build_family_encoder(encoder, dtype=dtype)
    return BertEncoder(as_config(encoder), dtype=dtype)


def _head_options(encoder, dropout_rate):
    # a family config without `dropout_rate` (ModernBERT: its heads' dropout is 0): none
    return {"dropout_rate": getattr(encoder.config, "dropout_rate", None) if dropout_rate is None else dropout_rate,
            "initializer_range": encoder.config.initializer_range, "dtype": encoder.layer_dtype}


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
                     task="classification", task_config=None, problem_type=None):
    """Sentence(-pair) classifier: dropout + dense on the pooled `[CLS]` output; outputs logits.

    Args:
        encoder: a `BertEncoder`, `BertConfig`, preset name or config dict.
        num_classes: number of outputs (classes, labels, or 1 for a score).
        dropout_rate: dropout before the classifier (default: the config's).
        task, task_config: what the model is (see `BertTaskModel`); e.g. `task_config=
            {"labels": [...]}`. Other tasks with this head (regression, multi-label) name themselves.
        problem_type: Hugging Face's problem_type of the task (`SequenceHead`; a task class declares it); None:
            transformers' reading (one output: "regression", more: "single_label_classification"), so a
            multi-label head passes "multi_label_classification".

    Example:
        >>> model = build_classifier("bert_tiny_uncased", num_classes=3)
        >>> model.compile(optimizer="adam",
        ...               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    """
    encoder = _encoder(encoder)
    head = SequenceHead(num_classes, **_head_options(encoder, dropout_rate), problem_type=problem_type)
    return BertTaskModel.from_head(encoder, head, name, task, task_config)


def build_token_classifier(encoder, num_labels, dropout_rate=None, name="bert_token_classifier",
                           task_config=None):
    """Per-token classifier (e.g. NER): logits `[batch, seq, num_labels]`; task "token_classification".

    Example:
        >>> model = build_token_classifier("bert_tiny_uncased", num_labels=9)
    """
    encoder = _encoder(encoder)
    head = TokenHead(num_labels, **_head_options(encoder, dropout_rate))
    return BertTaskModel.from_head(encoder, head, name, "token_classification", task_config)


def build_span_labeler(encoder, name="bert_span_labeler", task_config=None):
    """SQuAD span labeler: `start_logits` and `end_logits`, each `[batch, seq]`; task "squad".

    Example:
        >>> model = build_span_labeler("bert_tiny_uncased")
        >>> sorted(model.output.keys())
        ['end_logits', 'start_logits']
    """
    encoder = _encoder(encoder)
    head = SpanHead(initializer_range=encoder.config.initializer_range, dtype=encoder.layer_dtype)
    return BertTaskModel.from_head(encoder, head, name, "squad", task_config)


def build_embedder(encoder, pooling="mean", normalize=True, name="bert_embedder", task_config=None):
    """Sentence embedder: the encoder's token vectors pooled over the mask (`SentencePooling`),
    optionally L2-normalized; output `embeddings` `[batch, hidden * modes]`; task "embedding".

    Example:
        >>> model = build_embedder("bert_tiny_uncased", pooling="mean", normalize=True)
        >>> model.output.shape
        (None, 128)
    """
    encoder = _encoder(encoder)
    head = EmbedderHead(pooling, normalize)
    task_config = dict(task_config or {}, pooling=pooling if isinstance(pooling, str) else ",".join(pooling),
                       normalize=bool(normalize))
    return BertTaskModel.from_head(encoder, head, name, "embedding", task_config)


def build_multiple_choice(encoder, dropout_rate=None, name="bert_multiple_choice", task="multiple_choice",
                          task_config=None):
    """Multiple choice (SWAG): inputs `[batch, choices, seq]` (`[CLS] context [SEP] ending [SEP]` per
    choice), one score per choice from the pooled output, logits `[batch, choices]`; Hugging Face's
    `BertForMultipleChoice`.

    Example:
        >>> model = build_multiple_choice("bert_tiny_uncased")
        >>> model.output.shape
        (None, None)
    """
    encoder = _encoder(encoder)
    head = MultipleChoiceHead(**_head_options(encoder, dropout_rate))
    return BertTaskModel.from_head(encoder, head, name, task, task_config)
