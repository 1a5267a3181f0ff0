"""Hugging Face folders of every family: config.json + model.safetensors (never pickles).

config.json's `model_type` picks the family (`keras_bert.models.families.FAMILIES`); its converter
(`ModelFamily.converter`: a table of its weight names) maps the folder's names onto the canonical names
(`huggingface_names`) and back. Accepted: with or without the base model's prefix (`BertModel` saves none,
`BertForPreTraining` `bert.`), with or without the pretraining heads, old `gamma`/`beta` LayerNorm
names, sharded `model.safetensors.index.json` folders.

Fine-tuned heads travel both ways: each head class (`keras_bert.models.HEADS`) declares the HF
architecture that holds the same layers and its weight names (`SequenceHead`:
`BertForSequenceClassification`, `classifier.*`; `SpanHead`: `BertForQuestionAnswering`, `qa_outputs.*`);
the family's converter names the class (`RobertaForSequenceClassification`) and what it names otherwise.
"""

import json
import os
import struct
import warnings

import numpy as np

from keras_bert.checkpoints.checkpoint_contents import PICKLE_SNIPPET, CheckpointContents, write_json
from keras_bert.checkpoints.huggingface_names import (canonical_name, family_hf_name, google_name,  # noqa: F401
                                                      huggingface_name)
from keras_bert.checkpoints.task_fields import check_task_fields
from keras_bert.config import read_json
from keras_bert.models.families import family_for_model_type, family_of
from keras_bert.models.heads import HEADS, hf_head
from keras_bert.text.text_config import find_text_config
from keras_bert.text.tokenizer_kinds import KINDS

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"
INDEX_NAME = "model.safetensors.index.json"
_LAYOUT = "a Hugging Face folder must contain config.json and model.safetensors (vocab.txt optional)"
TASK_KEY = "keras_bert_task"  # config.json: {"task", "task_config"} (column names, threshold...) as saved


def _read_raw(path, name):
    """Reads one tensor whose dtype numpy lacks (BF16) straight from the safetensors layout."""
    import ml_dtypes

    with open(path, "rb") as f:
        (header_size,) = struct.unpack("<Q", f.read(8))
        info = json.loads(f.read(header_size))[name]
        begin, end = info["data_offsets"]
        f.seek(8 + header_size + begin)
        data = f.read(end - begin)
    dtype = {"BF16": ml_dtypes.bfloat16, "F8_E4M3": ml_dtypes.float8_e4m3fn}[info["dtype"]]
    return np.frombuffer(data, dtype).reshape(info["shape"])


def _safetensors_files(directory):
    index_file = os.path.join(directory, INDEX_NAME)
    if os.path.exists(os.path.join(directory, WEIGHTS_NAME)):
        return [os.path.join(directory, WEIGHTS_NAME)]
    if os.path.exists(index_file):
        with open(index_file, encoding="utf-8") as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        missing = [s for s in shards if not os.path.exists(os.path.join(directory, s))]
        if missing:
            raise FileNotFoundError(f"{index_file} lists shards {missing} that are missing from {directory}.")
        return [os.path.join(directory, s) for s in shards]
    if os.path.exists(os.path.join(directory, "pytorch_model.bin")):
        raise ValueError(
            f"{directory} has only pytorch_model.bin, a pickle; keras_bert never unpickles files "
            "(loading a pickle can run arbitrary code). Convert it to safetensors once, in that "
            f"folder, with:\n{PICKLE_SNIPPET}\nthen load the folder again.")
    raise FileNotFoundError(f"No {WEIGHTS_NAME} in {directory}; {_LAYOUT}.")


def _read_tensors(files):
    from safetensors import SafetensorError, safe_open

    tensors = {}
    for path in files:
        try:
            with safe_open(path, framework="np") as f:
                for name in f.keys():
                    try:
                        tensors[name] = f.get_tensor(name)
                    except TypeError:  # BF16 / FP8: numpy has no such dtype
                        tensors[name] = _read_raw(path, name)
        except (SafetensorError, OSError, ValueError) as e:
            raise ValueError(
                f"{path} is corrupt or truncated and cannot be read ({type(e).__name__}: {e}). "
                "Download or save it again.") from e
    return tensors


def read_huggingface_checkpoint(path):
    """Reads a Hugging Face BERT folder (or its model.safetensors file).

    Args:
        path: the folder, or the `.safetensors` file inside it.

    Returns:
        A `CheckpointContents` in Google's names and layouts.

    Example:
        >>> contents = read_huggingface_checkpoint(minilm_dir)  # doctest: +SKIP
        >>> contents.config.hidden_size  # doctest: +SKIP
        384
    """
    directory = path if os.path.isdir(path) else os.path.dirname(path)
    files = _safetensors_files(directory) if os.path.isdir(path) else [path]
    config_file = os.path.join(directory, CONFIG_NAME)
    if not os.path.exists(config_file):
        raise FileNotFoundError(f"{directory} has {os.path.basename(files[0])} but no {CONFIG_NAME}; {_LAYOUT}.")
    raw_config = read_json(config_file, "a Hugging Face config")
    family = family_for_model_type(raw_config.get("model_type", "bert"), config_file)
    if raw_config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(
            f"{config_file} uses position_embedding_type={raw_config['position_embedding_type']!r}; "
            "keras_bert implements BERT's 'absolute' position embeddings only.")
    config = family.config_from_huggingface(raw_config, config_file)
    check_task_fields(raw_config, config_file, TASK_KEY)
    converter = family.converter
    suffix = next(filter(None, (converter.architecture_suffix(a) for a in raw_config.get("architectures") or ())), None)
    if suffix and hf_head(["Bert" + suffix]):
        converter.architecture(suffix)  # refuses a head this family's class holds otherwise
    unheld = converter.class_prefix + suffix if suffix in converter.unsupported else None  # its encoder loads
    source = f"Hugging Face checkpoint {files[0] if len(files) == 1 else directory}"
    tensors = _read_tensors(files)
    weights, source_names = {}, {}
    for hf_name in sorted(tensors, key=lambda n: n.endswith("decoder.bias")):  # prefer cls.predictions.bias
        if hf_name in (converter.tied_decoder, "position_ids") or tensors[hf_name].dtype.kind in "iub":  # tied, buffers
            continue
        goog, transposed = canonical_name(hf_name, family, suffix) or (hf_name, False)  # unknown: kept, named
        if goog in weights:
            continue
        value = np.asarray(tensors[hf_name], np.float32)
        weights[goog] = np.ascontiguousarray(value.T) if transposed else value
        source_names[goog] = (hf_name, transposed)
    weights = converter.read_weights(weights, config)
    table = weights.get("bert/embeddings/word_embeddings")
    decoder = tensors.get(converter.tied_decoder)
    if decoder is not None and table is not None and not np.array_equal(decoder.astype("float32"), table):
        warnings.warn(
            f"{source}: {converter.tied_decoder} differs from the word embeddings; keras_bert "
            "ties the MLM projection to the word embeddings (as BERT does), so the untied decoder is ignored.",
            UserWarning, stacklevel=2)
    text_config = find_text_config(directory)
    if text_config is None and not KINDS[family.tokenizer].token_lines:
        warnings.warn(f"{directory}: no text contract read (this keras_bert reads WordPiece vocabularies; a "
                      f"{family.tokenizer} tokenizer's files are not read yet); text_config is None: feed token ids.",
                      UserWarning, stacklevel=2)
    head, task, task_config, dropout_rate = _read_task(raw_config, config_file, text_config, suffix,
                                                       config.max_sequence_length)
    return CheckpointContents(config=config, weights=weights, source=source, source_names=source_names,
                              text_config=text_config, config_file=config_file, task=task,
                              task_config=task_config, head_dropout_rate=dropout_rate, head=head,
                              head_options=head.hf_options(raw_config) if head else None, unheld_head=unheld)


def _read_task(raw_config, config_file, text_config, suffix, max_length):
    """(head class, task, task_config, head dropout) of a fine-tuned folder's config.json (its
    architecture's `ForX`, as a head class declares it), or Nones for `BertModel` / `BertForPreTraining`."""
    head = hf_head(["Bert" + suffix] if suffix else None)
    if head is None:
        return None, None, None, None
    # transformers 5 leaves out its default id2label (two outputs, LABEL_0 and LABEL_1)
    labels = _labels(raw_config.get("id2label"), config_file, raw_config.get("label2id")) or [
        f"LABEL_{i}" for i in range(int(raw_config.get("num_labels") or 2))]
    saved = raw_config.get(TASK_KEY) or {}
    task, labeled = head.hf_task(raw_config, config_file)
    task_config = {}
    if saved.get("task"):  # written by keras_bert: the task and options it saved
        task, task_config = saved["task"], dict(saved.get("task_config") or {})
    if text_config is not None and text_config.max_seq_length and "seq_length" not in task_config:
        task_config["seq_length"] = min(text_config.max_seq_length, max_length)  # RoBERTa's 514 rows: 512
    if labeled and (raw_config.get("id2label") or not task_config.get("labels")):  # id2label, as transformers reads
        task_config["labels"] = labels
    return head, task, task_config, raw_config.get("classifier_dropout")


def _labels(id2label, config_file, label2id=None):
    """id2label's names in id order (None without one), or a one-line error (a name that is no text; a label2id
    at odds with it, unless it is transformers' default LABEL_i left behind: transformers reads neither)."""
    if not id2label:
        return None
    if not isinstance(id2label, dict):
        raise ValueError(f"{config_file}: id2label is {id2label!r}; expected a map of ids to names, "
                         '{"0": "neg", "1": "pos"}.')
    try:
        ids = sorted(int(i) for i in id2label)
    except (TypeError, ValueError):
        ids = None
    if ids != list(range(len(id2label))):
        raise ValueError(f"{config_file}: id2label must map the ids 0..{len(id2label) - 1} to names, "
                         f"got keys {sorted(id2label)[:8]}.")
    names = [id2label[str(i)] if str(i) in id2label else id2label[i] for i in ids]
    bad = next((i for i, name in zip(ids, names) if isinstance(name, bool) or not isinstance(name, (str, int))), None)
    if bad is not None:
        raise ValueError(f"{config_file}: id2label[{bad}] is {names[bad]!r}, not a label name; give every id a name.")
    names = [str(name) for name in names]
    if isinstance(label2id, dict) and label2id and set(label2id) != {f"LABEL_{i}" for i in range(len(label2id))}:
        wrong = sorted(name for name, i in label2id.items() if name not in names or str(i) != str(names.index(name)))
        if wrong:
            raise ValueError(f"{config_file}: label2id disagrees with id2label ({', '.join(map(repr, wrong[:3]))}: "
                             f"id2label says {dict(enumerate(names))}); fix one so that they map the same names "
                             "to the same ids.")
    return names


def huggingface_task(model):
    """(head, task, task_config) to write `model` (a `BertTaskModel`) as a Hugging Face `BertFor...`
    folder, or a one-line error naming a head that no HF architecture holds."""
    from keras_bert.models.model_operations import task_head

    head = task_head(model)
    if head is None or not head.carries:  # what each head class declares
        raise ValueError(
            f"Model {model.name!r} (task {model.task!r}) has a head that no Hugging Face BERT "
            f"architecture holds (HF heads: {sorted(h.HF_ARCHITECTURE for h in HEADS if h.HF_ARCHITECTURE)}); "
            "save it with model.save('model.keras'), or its encoder "
            "with save_checkpoint(model.encoder, path, format='huggingface').")
    return head, model.task, model.task_config


def write_huggingface_checkpoint(directory, config, weights, head=None, task=None, task_config=None):
    """Writes config.json + model.safetensors as the model family's pretraining class (BERT:
    `BertForPreTraining`), base model (`BertModel`) or a head's class (`BertFor...`) saves them.

    Names carry the family's prefix (`bert.`, `roberta.`); config.json its `model_type`;
    `transformers.AutoModel` loads the folder with `from_pretrained`. With a `head` (a `TaskHead`),
    the head and its config (`id2label`/`label2id`, `problem_type`, `classifier_dropout`) are written
    as its architecture (`head.HF_ARCHITECTURE`, in the family's name) saves them, so
    `transformers.pipeline` runs it.

    Args: as `write_google_checkpoint` (`directory`, `config`, Google-named `weights`), and the
        task model's head, `task` and `task_config` (see `huggingface_task`).

    Example:
        >>> write_huggingface_checkpoint("/tmp/hf", config, model_weights(encoder))  # doctest: +SKIP
    """
    from safetensors.numpy import save_file

    os.makedirs(directory, exist_ok=True)
    family = family_of(config)
    converter = family.converter
    has_heads = any(name.startswith("cls/") for name in weights)
    suffix = head.HF_ARCHITECTURE[len("Bert"):] if head is not None else (
        converter.pretraining_suffix if has_heads else "Model")
    architecture = converter.architecture(suffix)
    tensors = {}
    for name, value in converter.write_weights(weights, config).items():
        if head is not None and not head.reads_pooler and name.startswith("bert/pooler/"):
            continue  # add_pooling_layer=False in HF
        hf_name = family_hf_name(name, family, suffix)
        if hf_name is None:  # not in this class's file (ELECTRA's pooler, DistilBERT's token types, ...)
            continue
        tensors[hf_name[0]] = np.ascontiguousarray(value.T if hf_name[1] else value, dtype=np.float32)
    hf_config = family.huggingface_config(config, architecture)
    if head is not None:
        hf_config.update(_task_config(head, task, task_config or {}))
    write_json(os.path.join(directory, CONFIG_NAME), hf_config)
    save_file(tensors, os.path.join(directory, WEIGHTS_NAME), metadata={"format": "pt"})
    return directory


def _task_config(head, task, task_config):
    """config.json's head entries for a task model (labels named as the model names them)."""
    entries = {TASK_KEY: {"task": task, "task_config": task_config}}
    if head.HF_LABELS:
        labels = task_config.get("labels") or [f"LABEL_{i}" for i in range(head.num_outputs)]
        entries.update(id2label={str(i): str(name) for i, name in enumerate(labels)},
                       label2id={str(name): i for i, name in enumerate(labels)})
    if head.problem_type:  # the head's own (SequenceHead), never looked up by the task's name
        entries["problem_type"] = head.problem_type
    if head.dropout_rate is not None:
        entries["classifier_dropout"] = head.dropout_rate
    return entries
