"""keras-hub presets: config.json, model.weights.h5, tokenizer.json, assets/tokenizer/vocabulary.txt, metadata.json.

The folder is written and read by keras-hub itself (`BertBackbone` / `BertTokenizer`
`.save_to_preset` and `.from_preset`), so it is exactly what keras-hub defines; weights
travel through Google's names (`weight_map.py`). keras-hub's BERT always computes the tanh
GELU, uses LayerNorm epsilon 1e-12 and one dropout rate for everything: a preset reads back
as `hidden_act="gelu_tanh"`, and writing an erf-GELU model says how far keras-hub's numbers
will be from it.
"""

import json
import os
import warnings

import keras
import numpy as np

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents
from keras_bert.checkpoints.weight_map import block_variables, model_weights
from keras_bert.config import BertConfig, read_json
from keras_bert.text.text_config import TextConfig

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.weights.h5"
TOKENIZER_NAME = "tokenizer.json"
VOCAB_ASSET = os.path.join("assets", "tokenizer", "vocabulary.txt")
_LAYER_NORM_EPS = 1e-12  # fixed inside keras_hub.models.BertBackbone


def is_keras_hub_preset(files):
    """True if a directory listing is a keras-hub preset (keras_bert's own folders use encoder.weights.h5)."""
    return CONFIG_NAME in files and WEIGHTS_NAME in files


def _keras_hub():
    try:
        import keras_hub  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError("The keras-hub preset format needs keras-hub: pip install 'keras-hub~=0.32'.") from e
    return keras_hub


def _backbone_variables(backbone):
    """List of (Google name, keras-hub variable) for a `keras_hub.models.BertBackbone`."""
    layer = backbone.get_layer
    norm, pooler = layer("embeddings_layer_norm"), layer("pooled_dense")
    entries = [
        ("bert/embeddings/word_embeddings", layer("token_embedding").embeddings, False),
        ("bert/embeddings/token_type_embeddings", layer("segment_embedding").embeddings, False),
        ("bert/embeddings/position_embeddings", layer("position_embedding").position_embeddings, False),
        ("bert/embeddings/LayerNorm/gamma", norm.gamma, False), ("bert/embeddings/LayerNorm/beta", norm.beta, False),
    ]
    for index in range(backbone.num_layers):
        block = layer(f"transformer_layer_{index}")
        attention = block._self_attention_layer  # pylint: disable=protected-access
        entries += block_variables(f"bert/encoder/layer_{index}", (  # pylint: disable=protected-access
            attention.query_dense, attention.key_dense, attention.value_dense, attention.output_dense,
            block._self_attention_layer_norm, block._feedforward_intermediate_dense,
            block._feedforward_output_dense, block._feedforward_layer_norm))
    entries += [("bert/pooler/dense/kernel", pooler.kernel, False), ("bert/pooler/dense/bias", pooler.bias, False)]
    return [(name, variable) for name, variable, _ in entries]


def _google_shape(name, value, hidden):
    """keras-hub stores attention Dense layers per head (EinsumDense); Google flattens them."""
    if name.endswith("/bias"):
        return value.reshape(-1)
    if "/attention/self/" in name:
        return value.reshape(hidden, -1)  # (hidden, heads, head_dim) -> (hidden, hidden)
    if "/attention/output/dense/" in name:
        return value.reshape(-1, hidden)  # (heads, head_dim, hidden) -> (hidden, hidden)
    return value


def _check_representable(config, source):
    if config.position_offset:  # RoBERTa-style positions: BertBackbone starts at row 0
        raise ValueError(f"{source} is a {config.family!r} model (positions start at row {config.position_offset}); "
                         "keras-hub's BertBackbone cannot hold it. Save it as 'huggingface' or 'keras'.")
    if config.embedding_width != config.hidden_size:  # ELECTRA-small's embeddings_project
        raise ValueError(f"{source} has embedding_size={config.embedding_size} != hidden_size={config.hidden_size}; "
                         "keras-hub's BertBackbone cannot hold it. Save it as 'huggingface' or 'keras'.")
    if config.hidden_act == "relu":
        raise ValueError(f"{source} uses hidden_act='relu'; keras-hub's BertBackbone always computes "
                         "the tanh GELU, so it cannot hold this model. Save it as 'huggingface' or 'keras'.")
    if config.layer_norm_eps != _LAYER_NORM_EPS:
        warnings.warn(f"{source} uses layer_norm_eps={config.layer_norm_eps}; keras-hub's BertBackbone "
                      f"fixes it at {_LAYER_NORM_EPS}, so its outputs will differ slightly.",
                      UserWarning, stacklevel=3)


def _erf_gelu_notice(encoder, backbone, source):
    """Warns with the measured output difference between `encoder` (erf GELU) and keras-hub (tanh)."""
    config = encoder.config
    ids = np.random.default_rng(0).integers(0, config.vocab_size, (2, min(16, config.max_position_embeddings)))
    ours = encoder({"input_word_ids": ids, "input_mask": np.ones_like(ids),
                    "input_type_ids": np.zeros_like(ids)})["sequence_output"]
    theirs = backbone({"token_ids": ids, "padding_mask": np.ones_like(ids),
                       "segment_ids": np.zeros_like(ids)})["sequence_output"]
    diff = float(np.max(np.abs(np.asarray(ours) - np.asarray(theirs))))
    warnings.warn(
        f"{source} uses the exact erf GELU (hidden_act='gelu'); keras-hub's BertBackbone always "
        f"computes the tanh approximation, so keras-hub's outputs differ from this model's: max "
        f"|sequence_output diff| = {diff:.1e} on a random 2x16 batch (on real MiniLM-L6 text, up to "
        "4.4e-3). The weights are copied unchanged.", UserWarning, stacklevel=3)
    return diff


def write_keras_hub_checkpoint(path, encoder, text_config=None, vocab_file=None):
    """Writes a keras-hub preset folder that keras-hub's `BertBackbone` and `BertTokenizer.from_preset` load.

    Args:
        path: output directory (created if needed).
        encoder: a `BertEncoder`.
        text_config: the `keras_bert.TextConfig` written as keras-hub's tokenizer (tokenizer.json:
            `lowercase` = `strip_accents` = `lower_case`, `special_tokens_in_strings` = not
            `split_special_tokens`; assets/tokenizer/vocabulary.txt). Without it, only the backbone.
        vocab_file: a vocab.txt given without a contract: an error (keras-hub needs the casing).

    Example:
        >>> write_keras_hub_checkpoint("/tmp/preset", encoder, tokenizer.text_config)  # doctest: +SKIP
    """
    config, source = encoder.config, f"model {encoder.name!r}"
    if text_config is None and vocab_file:
        raise ValueError(f"Writing the keras-hub tokenizer for {vocab_file} needs the text contract "
                         "(casing): pass text_config=tokenizer.text_config to save_checkpoint.")
    _check_representable(config, source)
    keras_hub = _keras_hub()
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=config.vocab_size, num_layers=config.num_layers, num_heads=config.num_heads,
        hidden_dim=config.hidden_size, intermediate_dim=config.intermediate_size,
        dropout=config.dropout_rate, max_sequence_length=config.max_position_embeddings,
        num_segments=config.type_vocab_size)
    weights = model_weights(encoder)
    for name, variable in _backbone_variables(backbone):
        variable.assign(weights[name].reshape(variable.shape))
    if config.hidden_act == "gelu":
        _erf_gelu_notice(encoder, backbone, source)
    os.makedirs(path, exist_ok=True)
    backbone.save_to_preset(path)
    if text_config is not None:
        keras_hub.models.BertTokenizer(
            vocabulary=text_config.vocab_file, lowercase=text_config.lower_case,
            strip_accents=text_config.lower_case,
            special_tokens_in_strings=not text_config.split_special_tokens).save_to_preset(path)
    return path


def read_text_config(path):
    """The `TextConfig` of a preset's tokenizer.json + vocabulary asset, or None without a tokenizer."""
    tokenizer_file, vocab_file = os.path.join(path, TOKENIZER_NAME), os.path.join(path, VOCAB_ASSET)
    if not (os.path.isfile(tokenizer_file) and os.path.isfile(vocab_file)):
        return None
    with open(tokenizer_file, encoding="utf-8") as f:
        tokenizer = json.load(f)["config"]
    if bool(tokenizer.get("strip_accents")) != bool(tokenizer["lowercase"]):
        raise ValueError(f"{tokenizer_file} sets strip_accents={tokenizer.get('strip_accents')} with "
                         f"lowercase={tokenizer['lowercase']}; keras_bert strips accents exactly when "
                         "it lowercases (as BERT does).")
    return TextConfig(vocab_file, lower_case=bool(tokenizer["lowercase"]), source=tokenizer_file,
                      split_special_tokens=not tokenizer.get("special_tokens_in_strings", False))


def _weight_sizes(weights_file):
    """`{config key: size}` that the weights file's shapes imply (keras-hub's BertBackbone layout)."""
    import h5py  # pylint: disable=import-outside-toplevel  (keras' own dependency)

    try:
        with h5py.File(weights_file, "r") as f:
            shapes = {}
            f.visititems(lambda name, obj: shapes.update({name: obj.shape}) if hasattr(obj, "shape") else None)
    except OSError as error:
        reason = " ".join(str(error).split())
        raise ValueError(f"{weights_file} is not a readable weights file ({reason}): it is truncated or "
                         "damaged; download or save the preset again.") from None
    sizes = {}
    embedding = shapes.get("layers/reversible_embedding/vars/0")
    if embedding is not None:
        sizes.update(vocabulary_size=embedding[0], hidden_dim=embedding[1])
    if "layers/position_embedding/vars/0" in shapes:
        sizes["max_sequence_length"] = shapes["layers/position_embedding/vars/0"][0]
    if "layers/embedding/vars/0" in shapes:
        sizes["num_segments"] = shapes["layers/embedding/vars/0"][0]
    blocks = {name.split("/")[1] for name in shapes if name.startswith("layers/transformer_encoder")}
    if blocks:
        sizes["num_layers"] = len(blocks)
    intermediate = shapes.get("layers/transformer_encoder/_feedforward_intermediate_dense/vars/0")
    if intermediate is not None:
        sizes["intermediate_dim"] = intermediate[1]
    return sizes


def _check_weights_match(config_file, config, weights_file):
    """One line naming the first size where `config.json` and `model.weights.h5` disagree."""
    if not os.path.isfile(weights_file):
        raise FileNotFoundError(f"{weights_file} does not exist; a keras-hub preset holds config.json and "
                                f"{WEIGHTS_NAME}.")
    for key, size in _weight_sizes(weights_file).items():
        if key in config and config[key] != size:
            raise ValueError(f"{config_file} says {key}={config[key]} but {weights_file} holds {size}: the config "
                             "and the weights come from different models; use the preset's own config.json.")


def read_keras_hub_checkpoint(path):
    """Reads a keras-hub BERT preset folder (written by keras-hub or by `save_checkpoint(format="keras_hub")`).

    Args:
        path: the preset directory.

    Returns:
        A `CheckpointContents` (config with `hidden_act="gelu_tanh"`, keras-hub's activation) whose
        `text_config` comes from the preset's tokenizer (None without one).

    Example:
        >>> contents = read_keras_hub_checkpoint("/tmp/preset")  # doctest: +SKIP
    """
    keras_hub = _keras_hub()
    config_file = os.path.join(path, CONFIG_NAME)
    preset = read_json(config_file, "a keras-hub preset config")
    class_name = preset.get("registered_name", "") if isinstance(preset, dict) else ""
    if class_name != "keras_hub>BertBackbone":
        raise ValueError(f"{config_file} describes a {class_name or 'non-keras-hub'} model; keras_bert "
                         "reads keras-hub presets of keras_hub>BertBackbone only.")
    _check_weights_match(config_file, preset.get("config") or {}, os.path.join(path, WEIGHTS_NAME))
    backbone = keras_hub.models.BertBackbone.from_preset(path)
    config = BertConfig(
        vocab_size=backbone.vocabulary_size, hidden_size=backbone.hidden_dim,
        num_layers=backbone.num_layers, num_heads=backbone.num_heads,
        intermediate_size=backbone.intermediate_dim, hidden_act="gelu_tanh",
        max_position_embeddings=backbone.max_sequence_length, type_vocab_size=backbone.num_segments,
        dropout_rate=backbone.dropout, attention_dropout_rate=backbone.dropout,
        layer_norm_eps=_LAYER_NORM_EPS)
    weights = {name: _google_shape(name, keras.ops.convert_to_numpy(variable), config.hidden_size)
               for name, variable in _backbone_variables(backbone)}
    return CheckpointContents(config=config, weights=weights, source=f"keras-hub preset {path}",
                              text_config=read_text_config(path), config_file=config_file)
