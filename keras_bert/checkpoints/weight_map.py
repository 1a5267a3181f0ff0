"""Maps keras_bert models to Google's TF1 checkpoint names, the canonical names of this package.

Google's names and layouts are the hub every format converts through: Dense
kernels are `[in, out]` in Keras and in Google's checkpoints alike; only the
next-sentence weights are stored transposed (`output_weights` `[2, H]`).
"""

import warnings

import keras
import numpy as np

from keras_bert.models.bert_encoder import BLOCK_PARTS, BertEncoder, block_variables  # noqa: F401 (re-exported)
from keras_bert.models.bert_encoder import dense_variables as _dense
from keras_bert.models.bert_encoder import layer_norm_variables as _layer_norm
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.families import family_of
from keras_bert.models.model_operations import find_encoder, task_head

# Optional parts: a source may lack them (the model then keeps fresh weights).
POOLER, MLM, NSP = "bert/pooler/", "cls/predictions/", "cls/seq_relationship/"
_PART_NAMES = {POOLER: "pooler", MLM: "masked-LM head (cls/predictions)",
               NSP: "next-sentence head (cls/seq_relationship)"}
# A task model's head names its own weights (`TaskHead.google_variables`: Google's run_classifier.py
# `output_weights` [labels, H] / `output_bias`, run_squad.py `cls/squad/...`).
# Optimizer state and bookkeeping in training checkpoints; never model weights.
_TRAINING_STATE = ("adam_m", "adam_v", "global_step", "Momentum", "beta1_power", "beta2_power")


def model_variables(model):
    """List of (Google name, Keras variable, transposed) for an encoder, a pretrainer or a task
    model (its head: `TaskHead.google_variables`).

    `transposed` is True where Google stores the transpose of the Keras variable.
    """
    entries = find_encoder(model).named_variables()  # the encoder names its own weights
    if isinstance(model, BertPretrainer):
        mlm = model.get_layer("mlm_head")
        if hasattr(mlm, "transform"):  # BERT's: its own transform; else the encoder's (ModernBERT's `head`)
            entries += (_dense("cls/predictions/transform/dense", mlm.transform)
                        + _layer_norm("cls/predictions/transform/LayerNorm", mlm.layer_norm))
        bias = mlm.output_bias if hasattr(mlm, "output_bias") else mlm.bias  # None: a decoder without one
        entries += [("cls/predictions/output_bias", bias, False)] if bias is not None else []
        if model.next_sentence:  # RoBERTa-style pretrainers have masked LM only
            nsp = model.get_layer("nsp_head")
            entries += [("cls/seq_relationship/output_weights", nsp.dense.kernel, True),
                        ("cls/seq_relationship/output_bias", nsp.dense.bias, False)]
    head = task_head(model)
    return entries + (head.google_variables() if head is not None else [])


def model_weights(model):
    """Dict Google name -> float32 numpy array (Google's layout) of an encoder, pretrainer or task model."""
    weights = {}
    for name, variable, transposed in model_variables(model):
        value = keras.ops.convert_to_numpy(keras.ops.cast(variable, "float32"))
        weights[name] = np.ascontiguousarray(value.T if transposed else value)
    return weights


def is_training_state(name):
    """True for optimizer slots and step counters (`.../adam_m`, `global_step`)."""
    return any(part in name.split("/")[-1] for part in _TRAINING_STATE)


def _shape_error(contents, name, got, expected):
    sizes = ", ".join(f"{field}={getattr(contents.config, field)}" for field in (
        "vocab_size", "hidden_size", "intermediate_size", "max_position_embeddings", "type_vocab_size")
        if hasattr(contents.config, field))  # a family's config may lack some (ModernBERT: token types)
    return ValueError(
        f"{contents.source}: variable {contents.source_name(name)!r} has shape "
        f"{contents.source_shape(name, got)} but the config ({contents.config_file}: {sizes}) expects "
        f"{contents.source_shape(name, expected)}. The config and the weights do not "
        "belong together: use the config file that was saved with these weights.")


def assign_weights(model, contents):
    """Copies `contents.weights` into an encoder, pretrainer or task model after checking every shape.

    Raises ValueError naming the variable when a shape disagrees with the config
    or an encoder weight is missing. Warns when the pooler or a pretraining head
    is missing from the source (it keeps its fresh initialization) and when the
    source has variables this model does not use.
    """
    entries = model_variables(model)
    pooler = family_of(find_encoder(model).config).converter.pooler_prefix  # what a base model's file may lack
    missing, updates = [], []
    for name, variable, transposed in entries:
        if name not in contents.weights:
            missing.append(name)
            continue
        value = contents.weights[name]
        expected = tuple(reversed(variable.shape)) if transposed else tuple(variable.shape)
        if tuple(value.shape) != expected:
            raise _shape_error(contents, name, value.shape, expected)
        updates.append((variable, value.T if transposed else value))
    optional = [part for part in (pooler, MLM, NSP) if any(m.startswith(part) for m in missing)]
    required = [m for m in missing if not m.startswith((pooler, MLM, NSP))]
    head = task_head(model)
    if head is not None and any(m.endswith(("output_weights", "output_bias")) for m in required):
        raise ValueError(
            f"{contents.source} lacks the weights of the {model.task!r} model's head ({head.name}: "
            f"{[m for m in required if m.endswith(('output_weights', 'output_bias'))]}); load it with "
            "model='encoder' and fine-tune a new head.")
    if head is not None and not head.reads_pooler and POOLER in optional:
        optional.remove(POOLER)  # the head reads no pooler (Hugging Face saves none for it)
    if required:
        raise ValueError(
            f"{contents.source} lacks {len(required)} encoder weight(s), e.g. "
            f"{[contents.source_name(m) for m in required[:5]]}. Is it a BERT checkpoint with "
            f"{contents.config.num_layers} layers, as its config says?")
    for part in optional:
        partial = [m for m in missing if m.startswith(part)]
        present = [n for n, _, _ in entries if n.startswith(part) and n not in partial]
        if present:
            raise ValueError(
                f"{contents.source} has part of the {_PART_NAMES.get(part, 'pooler')} but lacks "
                f"{[contents.source_name(m) for m in partial]}; the checkpoint is incomplete.")
        converter = family_of(contents.config).converter
        if part == pooler and not converter.base_pooler:  # the family's base model has none
            warnings.warn(f"{contents.source}: a {converter.architecture('Model')} has no pooler, so keras_bert's "
                          "pooled_output is untrained (a fine-tuned head trains it); use sequence_output, its "
                          "last_hidden_state.", UserWarning, stacklevel=3)
            continue
        warnings.warn(
            f"{contents.source} has no {_PART_NAMES.get(part, 'pooler')} weights; that part keeps its random "
            "initialization and must be trained before use.", UserWarning, stacklevel=3)
    for variable, value in updates:
        variable.assign(keras.ops.cast(value, variable.dtype))
    used = {name for name, _, _ in entries}
    unused = [contents.source_name(n) for n in contents.weights
              if n not in used and not n.startswith((pooler, MLM, NSP))]
    if unused:
        warnings.warn(
            f"{contents.source}: ignored {len(unused)} variable(s) that are not part of a BERT "
            f"encoder or its pretraining heads, e.g. {unused[:5]}.", UserWarning, stacklevel=3)
