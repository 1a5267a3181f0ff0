"""What any keras_bert model (an encoder, a pretrainer, a task model, or a model a user assembled around one)
is asked by the formats that read, write and export it: its encoder, its task head, itself in another dtype."""

import keras

from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.families import ENCODER_CLASSES


def find_encoder(model):
    """The `BertEncoder` inside `model`: the model itself, its `.encoder` (a pretrainer or a
    `BertTaskModel`), or, for a model a user assembled around one, the one among its layers."""
    if isinstance(model, ENCODER_CLASSES):  # any family's encoder
        return model
    if isinstance(model, (BertPretrainer, BertTaskModel)):
        return model.encoder
    for layer in getattr(model, "layers", []):
        if isinstance(layer, keras.Model):
            try:
                return find_encoder(layer)
            except ValueError:
                pass
    raise ValueError(
        f"{type(model).__name__} {getattr(model, 'name', '')!r} contains no BertEncoder; "
        "pass a model built by keras_bert (build_encoder, build_pretrainer, build_classifier, ...).")


def task_head(model):
    """The `TaskHead` of a `BertTaskModel`, or None for any other model (an encoder, a pretrainer, a head
    assembled by hand)."""
    return model.head if isinstance(model, BertTaskModel) else None


def with_dtype(model, dtype):
    """`model` rebuilt under the Keras dtype policy `dtype` (e.g. "mixed_bfloat16": variables stay
    float32, matmuls run in bfloat16) holding its weights, head, task options and text contract: each
    model class rebuilds itself (`with_dtype` of an encoder, a pretrainer, a task model with its head).

    Example:
        >>> served = with_dtype(classifier, "mixed_bfloat16")  # doctest: +SKIP
    """
    rebuilds = isinstance(model, ENCODER_CLASSES + (BertPretrainer,)) or task_head(model) is not None
    rebuilt = model.with_dtype(dtype) if rebuilds else None
    shapes = [tuple(tensor.shape) for tensor in keras.tree.flatten(model.output)]
    if rebuilt is None or [w.shape for w in rebuilt.weights] != [w.shape for w in model.weights] or \
            [tuple(tensor.shape) for tensor in keras.tree.flatten(rebuilt.output)] != shapes:
        raise ValueError(
            f"Model {model.name!r} cannot be rebuilt in {dtype}: only a keras_bert builder's model (encoder, "
            f"pretrainer, build_classifier, ...) can, and this one ({type(model).__name__}, {len(model.weights)} "
            f"weights, outputs {shapes}) is not one (a head assembled by hand?). Build it under that dtype policy "
            f"yourself (dtype={dtype!r}), or export it in float32 (--precision fp32).")
    return rebuilt
