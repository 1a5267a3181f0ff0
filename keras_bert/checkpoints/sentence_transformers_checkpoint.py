"""sentence-transformers folders: modules.json -> Transformer (a Hugging Face BERT) + Pooling + Normalize.

A folder such as all-MiniLM-L6-v2 holds `modules.json` (the module chain), the Transformer's
Hugging Face files (in the folder itself or a `0_Transformer/` subfolder) with
`sentence_bert_config.json` (`max_seq_length`, `do_lower_case`), `1_Pooling/config.json` and,
when the embeddings are unit-length, a `2_Normalize/` module. Reading gives the BERT weights and
text contract (the Hugging Face reader) plus `contents.embedding`: the options of
`build_embedder` (`pooling`, `normalize`) and `seq_length` (= `max_seq_length`). Writing turns an embedding model back into such a folder.
"""

import os

from keras_bert.checkpoints.checkpoint_contents import write_json
from keras_bert.checkpoints.huggingface_checkpoint import read_huggingface_checkpoint, write_huggingface_checkpoint
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.config import read_json
from keras_bert.models.model_operations import find_encoder, task_head

MODULES_NAME = "modules.json"
ST_CONFIG_NAME = "sentence_bert_config.json"
_MODULE = "sentence_transformers.models."
# Legacy boolean keys of 1_Pooling/config.json -> pooling mode, in sentence-transformers' order.
_POOLING_KEYS = {"pooling_mode_cls_token": "cls", "pooling_mode_max_tokens": "max",
                 "pooling_mode_mean_tokens": "mean", "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
                 "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken"}
_SUPPORTED_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens")


def read_sentence_transformers_checkpoint(path):
    """Reads a sentence-transformers folder: the Transformer's BERT plus its pooling options.

    Returns:
        A `CheckpointContents` whose `embedding` is `{"pooling", "normalize", "seq_length"}`
        (`seq_length`: the folder's `max_seq_length`; the embedding model's text contract gets it,
        the bare encoder keeps the Transformer's own).

    Example:
        >>> contents = read_sentence_transformers_checkpoint(minilm_dir)  # doctest: +SKIP
        >>> contents.embedding  # doctest: +SKIP
        {'pooling': 'mean', 'normalize': True, 'seq_length': 256}
    """
    path = os.fspath(path)
    modules_file = os.path.join(path, MODULES_NAME)
    modules = read_json(modules_file, "a sentence-transformers modules.json")
    _check_modules(modules, modules_file)
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    unsupported = [m.get("type") for m, kind in zip(modules, kinds) if kind not in ("Transformer", "Pooling", "Normalize")]
    if unsupported or kinds[:2] != ["Transformer", "Pooling"] or kinds.count("Normalize") > 1:
        raise ValueError(f"{modules_file} chains {[m.get('type') for m in modules]}; keras_bert reads "
                         "Transformer -> Pooling (-> Normalize) only" +
                         (f", not {unsupported}" if unsupported else "") + ".")
    transformer = os.path.join(path, modules[0].get("path", ""))
    contents = read_huggingface_checkpoint(transformer)
    pooling = _pooling(os.path.join(path, modules[1].get("path", ""), "config.json"), contents.config.hidden_size)
    st_file = os.path.join(transformer, ST_CONFIG_NAME)
    st_config = read_json(st_file, "a sentence-transformers config") if os.path.exists(st_file) else {}
    if not isinstance(st_config, dict):
        raise ValueError(f"{st_file} holds a JSON {type(st_config).__name__}; expected an object such as "
                         '{"max_seq_length": 256, "do_lower_case": false}.')
    # sentence-transformers 6 saves max_seq_length as the tokenizer's model_max_length and reads it from there.
    text_length = contents.text_config.max_seq_length if contents.text_config is not None else None
    seq_length = _max_seq_length(st_config.get("max_seq_length", text_length), st_file,
                                 contents.config.max_position_embeddings)
    if contents.text_config is not None and st_config.get("do_lower_case") and not contents.text_config.lower_case:
        contents.text_config = contents.text_config.replace(lower_case=True)  # the module lowercases text first
    contents.embedding = {"pooling": pooling, "normalize": "Normalize" in kinds, "seq_length": seq_length}
    return contents


def _check_modules(modules, modules_file):
    """A one-line error unless modules.json is a list of module objects with string `type` and `path`."""
    if not isinstance(modules, list):
        raise ValueError(f"{modules_file} holds a JSON {type(modules).__name__}; expected a list of modules "
                         '([{"idx": 0, "type": "sentence_transformers.models.Transformer", "path": ""}, ...]).')
    for i, module in enumerate(modules):
        bad = (f"is {module!r}" if not isinstance(module, dict) else next(
            (f"has {key}={module[key]!r}" for key in ("type", "path")
             if key in module and not isinstance(module[key], str)), None))
        if bad:
            raise ValueError(f"{modules_file}: module {i} {bad}; expected an object whose type and path are strings.")


def _max_seq_length(value, st_file, limit):
    """sentence_bert_config.json's `max_seq_length` (default: the model's positions), or a one-line error."""
    if value is None:
        return limit
    try:
        number = float(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    except ValueError:
        number = None
    if number is None or number != number or not 2 <= number < float("inf") or number != int(number):
        raise ValueError(f"{st_file}: max_seq_length is {value!r}; expected a whole number >= 2 such as 256.")
    value = int(number)
    if limit and value > limit:
        raise ValueError(f"{st_file}: max_seq_length is {value}, more than the model's {limit} positions "
                         f"(max_position_embeddings); set it to {limit} or less.")
    return value


def _pooling(config_file, hidden_size):
    """The pooling modes of `1_Pooling/config.json` as "mean" / "cls,mean", or a one-line error."""
    raw = read_json(config_file, "a sentence-transformers pooling config")
    if not isinstance(raw, dict):
        raise ValueError(f"{config_file} holds a JSON {type(raw).__name__}; expected an object such as "
                         '{"word_embedding_dimension": 384, "pooling_mode_mean_tokens": true}.')
    modes = raw.get("pooling_mode")
    if modes is None:
        modes = [mode for key, mode in _POOLING_KEYS.items() if raw.get(key)]
    if not (isinstance(modes, str) or isinstance(modes, list) and all(isinstance(m, str) for m in modes)):
        raise ValueError(f"{config_file}: pooling_mode is {modes!r}; expected a mode name or a list of them "
                         f"(one of {_SUPPORTED_MODES}), e.g. \"mean\".")
    modes = [modes] if isinstance(modes, str) else list(modes)
    bad = [m for m in modes if m not in _SUPPORTED_MODES]
    if bad or not modes:
        raise ValueError(f"{config_file} pools with {modes or 'no mode'}; keras_bert implements "
                         f"{_SUPPORTED_MODES} (not weightedmean or lasttoken).")
    dimension = raw.get("word_embedding_dimension", raw.get("embedding_dimension", hidden_size))
    if dimension != hidden_size:
        raise ValueError(f"{config_file} has word_embedding_dimension {dimension!r} but the "
                         f"Transformer's hidden size is {hidden_size}.")
    if raw.get("include_prompt") is False:
        raise ValueError(f"{config_file} sets include_prompt=false (prompt tokens left out of pooling); "
                         "keras_bert pools every token.")
    return ",".join(modes)


def write_sentence_transformers_checkpoint(path, model, text_config):
    """Writes `model` as a folder that `sentence_transformers.SentenceTransformer(path)` loads.

    An embedding model (task "embedding") keeps its pooling and normalization; a bare encoder is
    written with mean pooling and no normalization (sentence-transformers' default). The
    Transformer's files are the Hugging Face BERT (config.json, model.safetensors, tokenizer
    files) at the top of the folder; `max_seq_length` is the model's `seq_length` (else the text
    contract's, else 512 capped by the position embeddings).

    Args:
        path: output folder (created).
        model: an embedding `BertTaskModel` or a `BertEncoder`.
        text_config: the text contract to write (`keras_bert.TextConfig`); required.
    """
    encoder = find_encoder(model)
    head = task_head(model)
    embedding = head.embedding_options() if head is not None else None  # a sentence embedder's pooling
    if embedding is None and model is not encoder:
        raise ValueError(f"Model {model.name!r} is a {getattr(model, 'task', None) or type(model).__name__} "
                         "model; format 'sentence_transformers' writes an embedding model (an EmbedderHead, "
                         "e.g. load_checkpoint(path, model='embedding')) or a bare encoder.")
    if text_config is None:
        raise ValueError(f"Model {model.name!r} carries no text contract; pass text_config= "
                         "(sentence-transformers needs the tokenizer files).")
    options = dict(model.task_config, **embedding) if embedding is not None else {}
    pooling = options.get("pooling", "mean").split(",")
    seq_length = (options.get("seq_length") or text_config.max_seq_length
                  or min(512, encoder.config.max_position_embeddings or 512))
    write_huggingface_checkpoint(path, encoder.config, model_weights(encoder))
    text_config.replace(max_seq_length=seq_length).save(path, format="huggingface")
    modules = [{"idx": 0, "name": "0", "path": "", "type": _MODULE + "Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": _MODULE + "Pooling"}]
    if options.get("normalize"):
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": _MODULE + "Normalize"})
        os.makedirs(os.path.join(path, "2_Normalize"), exist_ok=True)
    write_json(os.path.join(path, MODULES_NAME), modules, sort_keys=False)
    pooling_config = {"word_embedding_dimension": encoder.config.hidden_size}
    if pooling == [m for m in _SUPPORTED_MODES if m in pooling]:  # the legacy keys' order: any reader
        pooling_config.update({key: mode in pooling for key, mode in _POOLING_KEYS.items()
                               if mode in _SUPPORTED_MODES})
    else:  # another order: sentence-transformers >= 5's list (concatenated in this order)
        pooling_config["pooling_mode"] = pooling
    write_json(os.path.join(path, "1_Pooling", "config.json"), pooling_config, sort_keys=False)
    write_json(os.path.join(path, ST_CONFIG_NAME), {"max_seq_length": int(seq_length), "do_lower_case": False},
               sort_keys=False)
    return path

