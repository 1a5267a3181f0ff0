"""HEADS: the head classes (one tuple), and the upgrade of task models saved before heads were classes."""

import keras
import numpy as np

from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.multiple_choice_head import MultipleChoiceHead
from keras_bert.models.sequence_head import SequenceHead
from keras_bert.models.span_head import SpanHead
from keras_bert.models.token_head import TokenHead

HEADS = (SequenceHead, TokenHead, SpanHead, EmbedderHead, MultipleChoiceHead)
_LEGACY_LAYERS = ("Dense", "SentencePooling")  # what a head was, by its default name, before it was a class


def hf_head(architectures):
    """The head class of a Hugging Face `architectures` list (config.json), or None (`BertModel`...)."""
    return next((head for name in architectures or () for head in HEADS if head.HF_ARCHITECTURE == name), None)


def upgrade(model):
    """`model` with its head as a `TaskHead`: a `BertTaskModel` loaded from a `.keras` file saved before
    heads were classes (a top-level Dense named "classifier", "token_classifier" or "span_labeler", or a
    SentencePooling "embeddings") comes back as the same model (name, task, options, encoder, weights)
    with that head; any other model is returned as it is.

    Example:
        >>> model = upgrade(keras.saving.load_model("old_model.keras"))  # doctest: +SKIP
    """
    if not isinstance(model, BertTaskModel) or model.head is not None:
        return model
    for head_class in HEADS:
        layer = next((l for l in model.layers if l.name == head_class.NAME
                      and type(l).__name__ in _LEGACY_LAYERS), None)
        if layer is not None:
            head, sources = head_class.from_legacy(model, layer)
            upgraded = BertTaskModel.from_head(model.encoder, head, model.name, model.task, model.task_config)
            head.set_weights([w for source in sources for w in source.get_weights()])
            return upgraded if _same_outputs(model, upgraded) else model  # else: a look-alike built by hand
    return model


def _same_outputs(model, upgraded):
    ids = keras.ops.convert_to_tensor(np.array([[2, 3, 4, 0], [4, 3, 2, 5]], "int32"))
    probe = {"input_word_ids": ids, "input_mask": keras.ops.cast(ids > 0, "int32"),
             "input_type_ids": keras.ops.zeros_like(ids)}
    try:
        pairs = zip(keras.tree.flatten(model(probe, training=False)),
                    keras.tree.flatten(upgraded(probe, training=False)))
        return all(np.allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b), atol=1e-5)
                   for a, b in pairs)
    except (ValueError, TypeError):
        return False
