"""This package's own format: keras_bert_config.json + {encoder,pretrainer}.weights.h5, or a .keras file."""

import os
import zipfile

import keras

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents, write_json
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.config import BertConfig, read_json
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.families import FAMILIES, build_family_encoder, family_of
from keras_bert.models.heads import HEADS
from keras_bert.models.model_operations import find_encoder, task_head
from keras_bert.text.text_config import find_text_config

CONFIG_NAME = "keras_bert_config.json"
ENCODER_WEIGHTS = "encoder.weights.h5"
PRETRAINER_WEIGHTS = "pretrainer.weights.h5"
_LAYOUT = (f"a keras_bert checkpoint directory must contain {CONFIG_NAME} and "
           f"{ENCODER_WEIGHTS} or {PRETRAINER_WEIGHTS} (vocab.txt optional)")


def load_keras_file(path, compile=True):  # pylint: disable=redefined-builtin
    """The model in a `.keras` file, whole (task head, text contract, task options), in any process.

    `compile=False` skips the saved optimizer, loss and metrics (`keras.saving.load_model`'s).
    A task model saved by a pre-release keras_bert, before heads were classes, is refused, saying how to re-save it.
    """
    import keras_bert  # pylint: disable=import-outside-toplevel

    if not os.path.isfile(path):
        raise FileNotFoundError(f"Model file {path} does not exist.")
    if not zipfile.is_zipfile(path):  # Keras would report a truncated file as "File not found"
        raise ValueError(f"{path} is corrupt or truncated: a .keras file is a zip archive and "
                         "this one is not readable as one. Save it again.")
    keras_bert.register_serializables()  # Keras finds the classes the file names only once registered
    model = keras.saving.load_model(path, compile=compile, safe_mode=True)
    _refuse_pre_release_head(model, path)
    try:
        find_encoder(model)
    except ValueError:  # a .keras file of another kind: named, before anything reads it further
        raise ValueError(f"{path} holds a {type(model).__name__} with no keras_bert encoder inside; pass a .keras "
                         "file saved from a keras_bert model (build_encoder, build_classifier, tools/finetune.py "
                         "...).") from None
    return model.check_labels(path) if isinstance(model, BertTaskModel) else model  # its label names fit its head


def _refuse_pre_release_head(model, path):
    """One line for a task model whose head is still a plain layer named as a head class (a Dense "classifier",
    a SentencePooling "embeddings"): what keras_bert wrote before heads were classes, in its first days."""
    names = {head.NAME for head in HEADS}
    old = isinstance(model, BertTaskModel) and model.head is None and next(
        (layer for layer in model.layers if layer.name in names and type(layer).__name__ in ("Dense", "SentencePooling")),
        None)
    if old:
        raise ValueError(
            f"{path} holds a task model ({model.task!r}) saved by a pre-release keras_bert, before heads were classes (its head is "
            f"a plain {type(old).__name__} {old.name!r}), which this version no longer reads: load it once with keras_bert "
            "at commit 65252d4 or earlier (its load_keras_file upgrades it) and model.save() it again, or convert the "
            "model again from its Hugging Face folder.")


def read_keras_checkpoint(path):
    """Reads a directory written by `save_checkpoint(..., format="keras")` or a `.keras` file.

    Args:
        path: the directory, or a `.keras` file holding any model with a `BertEncoder`.

    Returns:
        A `CheckpointContents`.

    Example:
        >>> contents = read_keras_checkpoint("/tmp/my_bert")  # doctest: +SKIP
    """
    if path.endswith(".keras") and os.path.isfile(path):  # its text contract may sit next to it
        model = load_keras_file(path, compile=False)  # its weights are read, not its optimizer state
        return model_contents(model, f"Keras model file {path}", config_file=path,
                              text_config=find_encoder(model).text_config or find_text_config(path))
    config_file = os.path.join(path, CONFIG_NAME)
    weight_files = [os.path.join(path, n) for n in (PRETRAINER_WEIGHTS, ENCODER_WEIGHTS)]
    weight_files = [f for f in weight_files if os.path.exists(f)]
    if not os.path.exists(config_file) or not weight_files:
        missing = CONFIG_NAME if not os.path.exists(config_file) else f"{ENCODER_WEIGHTS} or {PRETRAINER_WEIGHTS}"
        raise FileNotFoundError(f"{path} lacks {missing}; {_LAYOUT}.")
    config = _read_config(config_file)
    weights_file = weight_files[0]
    model = build_family_encoder(config)
    if weights_file.endswith(PRETRAINER_WEIGHTS):
        model = BertPretrainer(config, encoder=model)
    try:
        model.load_weights(weights_file)
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"{weights_file} is corrupt or truncated and cannot be read ({type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''}). Save it again.") from e
    return CheckpointContents(config=config, weights=model_weights(model),
                              source=f"keras_bert checkpoint {weights_file}",
                              text_config=find_text_config(path), config_file=config_file)


def _read_config(config_file):
    """keras_bert_config.json's config: a `BertConfig` (Google's and HF's files too), or the config class of the
    `family` it names where that family has its own (ModernBERT)."""
    values = read_json(config_file, "a keras_bert config")
    family = FAMILIES.get(values.get("family", "bert"))
    if family is None or family.config_class is BertConfig:  # BertConfig names an unknown family itself
        return BertConfig.from_json(config_file)
    return family.config_class.from_dict({key: value for key, value in values.items() if key != "family"})


def model_contents(model, source, config_file=None, text_config=None):
    """An in-memory model's contents: a pretrainer's heads, a builder-made task model's head, task and
    options, an embedder's pooling (so `load_checkpoint(file)` gives the model the file holds, tools
    convert it whole, and `with_dtype` rebuilds it), else the encoder's weights."""
    encoder = find_encoder(model)
    common = {"config": encoder.config, "source": source, "config_file": config_file,
              "text_config": text_config or encoder.text_config}
    head = task_head(model)
    if head is not None:
        embedding = head.embedding_options()  # a sentence embedder's pooling: what model="embedding" takes
        if embedding is not None and "seq_length" in model.task_config:
            embedding["seq_length"] = model.task_config["seq_length"]
        return CheckpointContents(weights=model_weights(model), task=model.task, task_config=model.task_config,
                                  head_dropout_rate=head.dropout_rate, head=type(head), head_config=head.get_config(),
                                  model_name=model.name, embedding=embedding, **common)
    return CheckpointContents(weights=model_weights(model if isinstance(model, BertPretrainer) else encoder), **common)


def write_keras_checkpoint(path, model):
    """Writes an encoder or pretrainer as keras_bert_config.json + weights.

    Args:
        path: output directory (created if needed).
        model: any family's encoder (`BertEncoder`, `ModernBertEncoder`) or a `BertPretrainer`.

    Example:
        >>> write_keras_checkpoint("/tmp/my_bert", encoder)  # doctest: +SKIP
    """
    os.makedirs(path, exist_ok=True)
    config = find_encoder(model).config
    # its family: which class reads it
    write_json(os.path.join(path, CONFIG_NAME), dict(config.to_dict(), family=family_of(config).name))
    name = PRETRAINER_WEIGHTS if isinstance(model, BertPretrainer) else ENCODER_WEIGHTS
    for stale in (PRETRAINER_WEIGHTS, ENCODER_WEIGHTS):
        if os.path.exists(os.path.join(path, stale)):
            os.remove(os.path.join(path, stale))
    model.save_weights(os.path.join(path, name))
    return path
