"""keras-hub presets: config.json, model.weights.h5, tokenizer.json, assets/tokenizer/..., metadata.json.

The folder is written and read by keras-hub itself (the family's backbone and tokenizer classes,
`BertBackbone` / `BertTokenizer`, `RobertaBackbone` / `RobertaTokenizer`, `XLMRobertaBackbone` /
`XLMRobertaTokenizer`: `.save_to_preset` and `.from_preset`), so it is exactly what keras-hub defines;
weights travel through Google's names (`weight_map.py`), placed by the family's layout
(`ModelFamily.keras_hub`, `models/keras_hub_layouts.py`). keras-hub's BERT always computes the tanh GELU,
uses LayerNorm epsilon 1e-12 and one dropout rate for everything: a preset reads back as `hidden_act="gelu_tanh"`, and writing an
erf-GELU model says how far keras-hub's numbers will be from it.
"""

import json
import os
import warnings

import keras
import numpy as np

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.config import read_json
from keras_bert.models.families import FAMILIES, family_of
from keras_bert.text.text_config import TextConfig
from keras_bert.text.tokenizer_kinds import KINDS

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.weights.h5"
TOKENIZER_NAME = "tokenizer.json"
ASSETS = os.path.join("assets", "tokenizer")
VOCAB_ASSET = os.path.join(ASSETS, "vocabulary.txt")
_BLOCKS = "layers/transformer_encoder"  # the h5 group of the first block (`_1`, `_2`... the others)


def _keras_hub():
    try:
        import keras_hub  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError("The keras-hub preset format needs keras-hub: pip install 'keras-hub~=0.32'.") from e
    return keras_hub


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


def google_shape(name, value, hidden):
    """keras-hub stores attention Dense layers per head (EinsumDense); Google flattens them."""
    if name.endswith("/bias"):
        return value.reshape(-1)
    if "/attention/self/" in name:
        return value.reshape(hidden, -1)  # (hidden, heads, head_dim) -> (hidden, hidden)
    if "/attention/output/dense/" in name:
        return value.reshape(-1, hidden)  # (heads, head_dim, hidden) -> (hidden, hidden)
    return value


def weight_sizes(layout, shapes):
    """`{config key: size}` that a weights file's `{h5 path: shape}` implies in `layout`."""
    sizes = {key: shapes[path][axis] for key, (path, axis) in layout.sizes.items() if path in shapes}
    blocks = {name.split("/")[1] for name in shapes if name.startswith(_BLOCKS)}
    if blocks:
        sizes["num_layers"] = len(blocks)
    intermediate = shapes.get(_BLOCKS + "/_feedforward_intermediate_dense/vars/0")
    if intermediate is not None:
        sizes["intermediate_dim"] = intermediate[1]
    return sizes


def tokenizer_assets(kind):
    """keras-hub's tokenizer asset files of a tokenizer kind, relative to the preset folder."""
    return [f"{ASSETS}/{name}" for name in KINDS[kind].keras_hub_assets]


def _family_layout(config, source):
    """The family of `config` and its keras-hub layout; one line for a family keras-hub presets do not hold."""
    family = family_of(config)
    if family.keras_hub is None:
        known = sorted(f.keras_hub.backbone for f in FAMILIES.values() if f.keras_hub)
        raise ValueError(f"{source} is a {family.name!r} model; keras_bert writes keras-hub presets of "
                         f"{', '.join(known)} only. Save it as 'huggingface' or 'keras'.")
    return family, family.keras_hub


def write_keras_hub_checkpoint(path, encoder, text_config=None, vocab_file=None):
    """Writes a keras-hub preset folder that keras-hub's backbone and tokenizer `.from_preset` load.

    The backbone and tokenizer classes are the family's (`ModelFamily.keras_hub`: `BertBackbone`,
    `RobertaBackbone`, `XLMRobertaBackbone`); a family without one is refused in one line.

    Args:
        path: output directory (created if needed).
        encoder: a `BertEncoder`.
        text_config: the `keras_bert.TextConfig` written as keras-hub's tokenizer (BERT's tokenizer.json:
            `lowercase` = `strip_accents` = `lower_case`, `special_tokens_in_strings` = not
            `split_special_tokens`; assets/tokenizer/vocabulary.txt; RoBERTa's vocabulary.json + merges.txt;
            XLM-R's vocabulary.spm). Without it, only the backbone.
        vocab_file: a vocab.txt given without a contract: an error (keras-hub needs the casing).

    Example:
        >>> write_keras_hub_checkpoint("/tmp/preset", encoder, tokenizer.text_config)  # doctest: +SKIP
    """
    config, source = encoder.config, f"model {encoder.name!r}"
    if text_config is None and vocab_file:
        raise ValueError(f"Writing the keras-hub tokenizer for {vocab_file} needs the text contract "
                         "(casing): pass text_config=tokenizer.text_config to save_checkpoint.")
    family, layout = _family_layout(config, source)
    if config.embedding_width != config.hidden_size:  # ELECTRA-small's embeddings_project: no backbone holds it
        raise ValueError(f"{source} has embedding_size={config.embedding_size} != hidden_size={config.hidden_size}; "
                         f"keras-hub's {layout.backbone} cannot hold it. Save it as 'huggingface' or 'keras'.")
    layout.check(config, source)
    if config.layer_norm_eps != layout.layer_norm_eps:
        warnings.warn(f"{source} uses layer_norm_eps={config.layer_norm_eps}; keras-hub's {layout.backbone} "
                      f"fixes it at {layout.layer_norm_eps}, so its outputs will differ slightly.",
                      UserWarning, stacklevel=3)
    keras_hub = _keras_hub()
    backbone = getattr(keras_hub.models, layout.backbone)(**layout.backbone_kwargs(config))
    weights = layout.from_canonical(model_weights(encoder), config, source)
    for name, variable in layout.variables(backbone):
        variable.assign(weights[name].reshape(variable.shape))
    if config.hidden_act != layout.hidden_act:  # BertBackbone's tanh GELU under an erf-GELU model
        _erf_gelu_notice(encoder, backbone, source)
    os.makedirs(path, exist_ok=True)
    backbone.save_to_preset(path)
    if text_config is not None:
        tokenizer_class = getattr(keras_hub.models, layout.tokenizer)
        tokenizer_class(**text_config.tokenizer_kind.keras_hub_arguments(text_config)).save_to_preset(path)
    return path


def read_text_config(path, kind="wordpiece"):
    """The `TextConfig` of a preset's tokenizer.json + vocabulary assets (a `kind` tokenizer), or None without one."""
    tokenizer_file = os.path.join(path, TOKENIZER_NAME)
    assets = [os.path.join(path, asset) for asset in tokenizer_assets(kind)]
    if not (os.path.isfile(tokenizer_file) and all(os.path.isfile(asset) for asset in assets)):
        return None
    with open(tokenizer_file, encoding="utf-8") as f:
        tokenizer = json.load(f)["config"]
    if not KINDS[kind].token_lines:
        if tokenizer.get("add_prefix_space"):
            raise ValueError(f"{tokenizer_file} sets add_prefix_space=true; keras_bert's byte-level BPE adds no "
                             "prefix space (as RoBERTa's tokenizer); save the tokenizer with add_prefix_space=False.")
        return TextConfig(assets[0], kind=kind, merges_file=assets[1] if len(assets) > 1 else None,
                          source=tokenizer_file)
    if bool(tokenizer.get("strip_accents")) != bool(tokenizer["lowercase"]):
        raise ValueError(f"{tokenizer_file} sets strip_accents={tokenizer.get('strip_accents')} with "
                         f"lowercase={tokenizer['lowercase']}; keras_bert strips accents exactly when "
                         "it lowercases (as BERT does).")
    return TextConfig(assets[0], lower_case=bool(tokenizer["lowercase"]), source=tokenizer_file,
                      split_special_tokens=not tokenizer.get("special_tokens_in_strings", False))


def _weight_shapes(weights_file):
    """`{h5 path: shape}` of a weights file; one line for a damaged one."""
    import h5py  # pylint: disable=import-outside-toplevel  (keras' own dependency)

    try:
        with h5py.File(weights_file, "r") as f:
            shapes = {}
            f.visititems(lambda name, obj: shapes.update({name: obj.shape}) if hasattr(obj, "shape") else None)
    except OSError as error:
        reason = " ".join(str(error).split())
        raise ValueError(f"{weights_file} is not a readable weights file ({reason}): it is truncated or "
                         "damaged; download or save the preset again.") from None
    return shapes


def _check_weights_match(config_file, config, weights_file, layout):
    """One line naming the first size where `config.json` and `model.weights.h5` disagree."""
    if not os.path.isfile(weights_file):
        raise FileNotFoundError(f"{weights_file} does not exist; a keras-hub preset holds config.json and "
                                f"{WEIGHTS_NAME}.")
    for key, size in weight_sizes(layout, _weight_shapes(weights_file)).items():
        if key in config and config[key] != size:
            raise ValueError(f"{config_file} says {key}={config[key]} but {weights_file} holds {size}: the config "
                             "and the weights come from different models; use the preset's own config.json.")


def _preset_family(config_file, preset):
    """The family whose keras-hub backbone the preset's config.json names; one line naming the known ones."""
    class_name = preset.get("registered_name", "") if isinstance(preset, dict) else ""
    for family in FAMILIES.values():
        if family.keras_hub and class_name == "keras_hub>" + family.keras_hub.backbone:
            return family
    known = sorted((f"keras_hub>{f.keras_hub.backbone}" for f in FAMILIES.values() if f.keras_hub),
                   reverse=True)
    raise ValueError(f"{config_file} describes a {class_name or 'non-keras-hub'} model; keras_bert "
                     f"reads keras-hub presets of {', '.join(known)} only.")


def read_keras_hub_checkpoint(path):
    """Reads a keras-hub preset folder of `BertBackbone`, `RobertaBackbone` or `XLMRobertaBackbone` (written by
    keras-hub or by `save_checkpoint(format="keras_hub")`).

    Args:
        path: the preset directory.

    Returns:
        A `CheckpointContents` (BERT: `hidden_act="gelu_tanh"`, keras-hub's activation; RoBERTa / XLM-R: their
        family's config, positions after `padding_idx + 1` and one zero token type row) whose `text_config`
        comes from the preset's tokenizer (None without one).

    Example:
        >>> contents = read_keras_hub_checkpoint("/tmp/preset")  # doctest: +SKIP
    """
    keras_hub = _keras_hub()
    config_file = os.path.join(path, CONFIG_NAME)
    preset = read_json(config_file, "a keras-hub preset config")
    family = _preset_family(config_file, preset)
    layout = family.keras_hub
    _check_weights_match(config_file, preset.get("config") or {}, os.path.join(path, WEIGHTS_NAME), layout)
    backbone = getattr(keras_hub.models, layout.backbone).from_preset(path)
    config = layout.config(backbone, family, config_file)
    weights = {name: google_shape(name, keras.ops.convert_to_numpy(variable), config.hidden_size)
               for name, variable in layout.variables(backbone)}
    return CheckpointContents(config=config, weights=layout.to_canonical(weights, config),
                              source=f"keras-hub preset {path}", text_config=read_text_config(path, family.tokenizer),
                              config_file=config_file)
