"""Hugging Face weight names <-> the canonical (Google TF1) names, for every BERT-shaped family.

BERT's names map one to one onto Google's: `bert.encoder.layer.3.attention.self.query.weight` is
`bert/encoder/layer_3/attention/self/query/kernel`, transposed (PyTorch Linear weights are `[out, in]`).
Another family's names go through BERT's: its record (`keras_bert.models.families`) renames its
prefix (`roberta.`) and the weights it names otherwise (`lm_head.*`, RoBERTa's `classifier.dense`).
"""

import re

from keras_bert.models.heads import HEADS

_HEADS = {  # Hugging Face name -> Google name; same layout
    "cls.predictions.bias": "cls/predictions/output_bias",
    "cls.predictions.decoder.bias": "cls/predictions/output_bias",
    "cls.seq_relationship.weight": "cls/seq_relationship/output_weights",
    "cls.seq_relationship.bias": "cls/seq_relationship/output_bias",
}
for _head in HEADS:  # the task heads' names, as each declares them: [outputs, H] in both
    if _head.HF_PREFIX:
        _HEADS.update({f"{_head.HF_PREFIX}.weight": _head.GOOGLE_PREFIX + "output_weights",
                       f"{_head.HF_PREFIX}.bias": _head.GOOGLE_PREFIX + "output_bias"})


def google_name(hf_name):
    """(Google name, transposed) for a Hugging Face BERT tensor name."""
    name = hf_name.removeprefix("bert.")
    if name in _HEADS:
        return _HEADS[name], False
    parts = re.sub(r"(?<![^.])layer\.(\d+)\.", r"layer_\1.", name).split(".")  # "layer.3." -> "layer_3."
    scope = ["cls"] if parts[0] == "cls" else ["bert"]
    parts = parts[1:] if parts[0] == "cls" else parts
    path, leaf = parts[:-1], parts[-1]
    if path and path[-1] == "LayerNorm":
        return "/".join(scope + path + [{"weight": "gamma", "bias": "beta"}.get(leaf, leaf)]), False
    if path and path[-1].endswith("_embeddings") and leaf == "weight":
        return "/".join(scope + path), False
    if leaf == "weight":
        return "/".join(scope + path + ["kernel"]), True
    return "/".join(scope + path + [leaf]), False


def huggingface_name(google):
    """(Hugging Face name, transposed) for a Google name, as BertForPreTraining saves it."""
    for hf, goog in _HEADS.items():
        if goog == google and hf != "cls.predictions.decoder.bias":
            return hf, False
    parts = google.split("/")
    dotted = ".".join(p.replace("layer_", "layer.") if p.startswith("layer_") else p for p in parts[:-1])
    leaf = parts[-1]
    if leaf.endswith("_embeddings"):
        return f"{dotted}.{leaf}.weight", False
    if leaf in ("gamma", "beta"):
        return f"{dotted}.{'weight' if leaf == 'gamma' else 'bias'}", False
    if leaf == "kernel":
        return f"{dotted}.weight", True
    return f"{dotted}.{leaf}", False


def _is_head_name(bert_name):
    return bert_name.removeprefix("bert.") in _HEADS


def canonical_name(hf_name, family, suffix=None):
    """(Canonical name, transposed) of `family`'s HF weight `hf_name` in a folder of HF class `...suffix`;
    a family with its own canonical names (`canonical_encoder_name`) keeps HF's layout for its encoder."""
    bert_name = family.to_bert_name(hf_name, suffix)
    if family.canonical_encoder_name is None or _is_head_name(bert_name):
        return google_name(bert_name)
    return family.canonical_encoder_name(hf_name), False


def family_hf_name(canonical, family, suffix=None):
    """(HF name, transposed) of a canonical name, as `family`'s HF class `...suffix` saves it (a name
    None: not written in that class's file)."""
    bert_name, transposed = huggingface_name(canonical)
    if family.hf_encoder_name is None or _is_head_name(bert_name):
        return family.from_bert_name(bert_name, suffix), transposed
    return family.hf_encoder_name(canonical, suffix == "Model"), False
