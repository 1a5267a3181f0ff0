"""The checkpoint formats: one record each (name, aliases, reader, writer, files), in one tuple.

`load_checkpoint` reads with the record of the format `detect_format` names, `save_checkpoint` writes with
the record of the format it is given; the format names a tool lists (`FORMATS`, `ALIASES`) are these records'.
Importing this module loads no TensorFlow (each reader and writer imports its module when called), so a
tool's `--help` lists the formats fast. Adding a format is one module with its reader and writer and one
record here.
"""

import dataclasses
import os
from typing import Any, Callable, Optional

# pylint: disable=import-outside-toplevel


@dataclasses.dataclass(frozen=True)
class SaveJob:
    """What a writer is given by `save_checkpoint`.

    Args:
        model: the model to save; encoder: the `BertEncoder` inside it.
        target: the BERT checkpoint's model: the pretrainer (with its heads) or the encoder.
        text_config: the text contract to write (or None); vocab_file: a vocab.txt to copy along (or None).
        task_weights: `model` is a task model with weights beyond its encoder (a head Hugging Face may hold).
    """

    model: Any
    encoder: Any
    target: Any
    text_config: Any = None
    vocab_file: Optional[str] = None
    task_weights: bool = False


@dataclasses.dataclass(frozen=True)
class CheckpointFormat:
    """One checkpoint format.

    Args:
        name: its `format=` name; aliases: other names for it.
        read: `path -> CheckpointContents`.
        write: `(path, job: SaveJob) -> the model written` (`job.model`, or the part of it the format holds).
        files: what its writer puts in a folder (glob patterns): removed from a folder a new checkpoint moves into.
        config: the file written last, which makes a loader take the folder for a checkpoint.
        check: `encoder -> None`, raising a one-line error before anything is written; or None.
        own_text: the writer writes the text contract in the format's own files (else `TextConfig.save` does).
        embedder_as: the format a sentence embedder is written as instead (its pooling kept), or None.
        bert: a BERT checkpoint (in `FORMATS`); False: a sentence embedder's folder.
    """

    name: str
    read: Callable
    write: Callable
    files: tuple
    config: str
    aliases: tuple = ()
    check: Optional[Callable] = None
    own_text: bool = False
    embedder_as: Optional[str] = None
    bert: bool = True


def _read_google(path):
    from keras_bert.checkpoints.google_checkpoint import read_google_checkpoint

    return read_google_checkpoint(path)


def _write_google(path, job):
    from keras_bert.checkpoints.google_checkpoint import write_google_checkpoint
    from keras_bert.checkpoints.weight_map import model_weights

    write_google_checkpoint(path, job.encoder.config, model_weights(job.target))
    return job.target


def _check_google(encoder):
    if not hasattr(encoder.config, "to_google_dict"):  # ModernBERT
        from keras_bert.models.families import family_of

        raise ValueError(f"A {family_of(encoder.config).name} model has no Google TF1 BERT checkpoint "
                         "(bert_config.json describes BERT's layers only); save it as 'huggingface' or 'keras'.")


def _read_huggingface(path):
    from keras_bert.checkpoints.huggingface_checkpoint import read_huggingface_checkpoint

    return read_huggingface_checkpoint(path)


def _write_huggingface(path, job):
    """A task model with its head as transformers' class of it (a head no HF class holds is refused), else the
    pretrainer or encoder."""
    from keras_bert.checkpoints.huggingface_checkpoint import huggingface_task, write_huggingface_checkpoint
    from keras_bert.checkpoints.weight_map import model_weights

    head = huggingface_task(job.model) if job.task_weights else ()
    written = job.model if head else job.target
    write_huggingface_checkpoint(path, job.encoder.config, model_weights(written), *head)
    return written


def _read_keras(path):
    from keras_bert.checkpoints.keras_checkpoint import read_keras_checkpoint

    return read_keras_checkpoint(path)


def _write_keras(path, job):
    from keras_bert.checkpoints.keras_checkpoint import write_keras_checkpoint

    write_keras_checkpoint(path, job.target)
    return job.target


def _read_keras_hub(path):
    from keras_bert.checkpoints.keras_hub_checkpoint import read_keras_hub_checkpoint

    return read_keras_hub_checkpoint(path)


def _write_keras_hub(path, job):
    """The encoder only: keras-hub's backbones have no pretraining heads."""
    from keras_bert.checkpoints.keras_hub_checkpoint import write_keras_hub_checkpoint

    write_keras_hub_checkpoint(path, job.encoder, job.text_config, job.vocab_file)
    return job.encoder


def _read_sentence_transformers(path):
    from keras_bert.checkpoints.sentence_transformers_checkpoint import read_sentence_transformers_checkpoint

    return read_sentence_transformers_checkpoint(path)


def _write_sentence_transformers(path, job):
    from keras_bert.checkpoints.sentence_transformers_checkpoint import write_sentence_transformers_checkpoint

    write_sentence_transformers_checkpoint(path, job.model, job.text_config)
    return job.model


SENTENCE_TRANSFORMERS = "sentence_transformers"  # a sentence embedder's folder, not a BERT checkpoint
_TEXT_FILES = ("vocab.txt", "text_config.json", "vocab.json", "merges.txt", "sentencepiece.bpe.model")
_HF_FILES = ("config.json", "model.safetensors", "model.safetensors.index.json", "model-*-of-*.safetensors",
             "tokenizer_config.json", "special_tokens_map.json", "tokenizer.json") + _TEXT_FILES
FORMAT_RECORDS = (
    CheckpointFormat("google", _read_google, _write_google, ("bert_config.json", "bert_model.ckpt.*", "checkpoint")
                     + _TEXT_FILES, "bert_config.json", aliases=("tf1",), check=_check_google),
    CheckpointFormat("huggingface", _read_huggingface, _write_huggingface, _HF_FILES, "config.json",
                     aliases=("hf", "safetensors"), embedder_as=SENTENCE_TRANSFORMERS),
    CheckpointFormat("keras", _read_keras, _write_keras, ("keras_bert_config.json", "encoder.weights.h5",
                     "pretrainer.weights.h5") + _TEXT_FILES, "keras_bert_config.json"),
    CheckpointFormat("keras_hub", _read_keras_hub, _write_keras_hub, ("config.json", "model.weights.h5",
                     "tokenizer.json", "metadata.json", "assets/tokenizer/*"), "config.json", aliases=("keras-hub",),
                     own_text=True),
    CheckpointFormat(SENTENCE_TRANSFORMERS, _read_sentence_transformers, _write_sentence_transformers,
                     _HF_FILES + ("modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
                                  "1_Pooling/config.json"), "config.json", aliases=("st",), own_text=True, bert=False),
)
RECORDS = {record.name: record for record in FORMAT_RECORDS}
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl")  # PyTorch's files: never unpickled (`check_not_pickle`)
FORMATS = tuple(record.name for record in FORMAT_RECORDS if record.bert)  # BERT checkpoints: what tools list
ALIASES = {alias: record.name for record in FORMAT_RECORDS for alias in record.aliases}
# What any format's writer puts in a folder: an earlier checkpoint's files are removed before
# writing, so the folder never loads an old model (nor pairs the new one with an old vocab.txt).
CHECKPOINT_FILES = tuple(dict.fromkeys(name for record in FORMAT_RECORDS for name in record.files))
CONFIG_FILES = tuple(dict.fromkeys(record.config for record in FORMAT_RECORDS))


def format_record(format):  # pylint: disable=redefined-builtin
    """The record of `format` (a name or an alias); a one-line error naming the choices otherwise."""
    record = RECORDS.get(ALIASES.get(format, format))
    if record is None:
        raise ValueError(f"Unknown checkpoint format {format!r}; expected one of {tuple(RECORDS)} "
                         f"(or an alias {sorted(ALIASES)}).")
    return record


def check_checkpoint_exists(path, name=None):
    """A one-line FileNotFoundError (naming `name`, the flag, where given) where `path` is neither a file or
    folder nor a TF1 checkpoint prefix (`.../bert_model.ckpt` beside its `.index`). `detect_format` and the tools'
    early refusal (`check_local_checkpoint`) both ask this: one test, one message."""
    text = os.fspath(path)
    if not (os.path.exists(text) or os.path.exists(text + ".index")):
        flag = f" ({name})" if name else ""
        raise FileNotFoundError(f"Checkpoint path {text}{flag} does not exist; name a checkpoint folder or file, "
                                "or a released one: hf://ORG/NAME[@REVISION] or a name such as bert_base_uncased")


def check_not_pickle(path):
    """A one-line ValueError where `path` is a file of a pickle's name (.bin, .pt, .pth, .pkl): keras_bert never
    unpickles files. `detect_format` and the tools' early refusal (`check_local_checkpoint`) both ask this."""
    from keras_bert.checkpoints.checkpoint_contents import PICKLE_SNIPPET

    text = os.fspath(path)
    if os.path.isfile(text) and os.path.basename(text).endswith(PICKLE_SUFFIXES):
        raise ValueError(
            f"{text} is a pickle; keras_bert never unpickles files (loading a pickle can run "
            "arbitrary code). Convert it to safetensors once, in its folder, with:\n"
            f"{PICKLE_SNIPPET}\nthen load the folder.")


def check_local_checkpoint(path, name):
    """`check_checkpoint_exists` where `path` is a local path (a folder separator or a .keras file, no `hf://` /
    `kaggle://` scheme: not a released checkpoint's name). The tools call it before TensorFlow loads: the
    loader's error came ~8 s later."""
    text = os.fspath(path)
    if ("/" in text or os.sep in text or text.endswith(".keras")) and "://" not in text:
        check_checkpoint_exists(text, name)
        check_not_pickle(text)


def local_config(path):
    """The `BertConfig` of a local keras_bert checkpoint folder, read from its config file before TensorFlow loads
    (for checks of sizes only: the batch's memory); None for another format, a family with a config class of its
    own, or a file its loader refuses itself (in its own words, later)."""
    from keras_bert.config import BertConfig

    config_file = os.path.join(os.fspath(path), RECORDS["keras"].config)
    if "://" in os.fspath(path) or not os.path.isfile(config_file):
        return None
    try:
        return BertConfig.from_json(config_file)  # as the keras reader reads a BERT family's (`_read_config`)
    except (OSError, TypeError, ValueError, AttributeError):
        return None


def check_keras_file_labels(path):
    """The label names a local .keras file's task model carries (its config.json's `task_config`), refused by the
    one label-name rule before TensorFlow loads, in `BertTaskModel.check_labels`' words (`{path}: the label
    names`); anything else in the file is left to the loader."""
    import json
    import zipfile

    from keras_bert.text.label_names import label_vocabulary_names

    text = os.fspath(path)
    if not (text.endswith(".keras") and zipfile.is_zipfile(text)):
        return
    try:
        with zipfile.ZipFile(text) as archive:
            config = json.loads(archive.read("config.json"))
        labels = config["config"]["task_config"]["labels"] if config["class_name"] == "BertTaskModel" else None
    except (KeyError, TypeError, ValueError, zipfile.BadZipFile):
        return
    if isinstance(labels, list) and all(isinstance(name, str) for name in labels):  # (other types: the loader's)
        label_vocabulary_names(labels, f"{text}: the label names")
