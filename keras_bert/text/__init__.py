"""keras_bert.text: in-graph WordPiece tokenization, packing and vocabularies (tensorflow-text).

Lazy (module `__getattr__`): `keras_bert.text.text_config` and `.vocab` import no TensorFlow, so
the models can carry their text contract without loading tensorflow-text.
"""

import importlib

_EXPORTS = {
    "keras_bert.text.masked_lm_masker": ("MaskedLMMasker",),
    "keras_bert.text.normalization": ("NORMALIZATIONS", "normalize_reference"),
    "keras_bert.text.preprocessor": ("Preprocessor",),
    "keras_bert.text.text_config": ("TextConfig", "find_text_config"),
    "keras_bert.text.tokenizer": ("Tokenizer",),
    "keras_bert.text.vocab": ("SPECIAL_TOKENS", "build_vocab", "load_vocab", "special_token_ids",
                              "write_vocab"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_MODULE_OF))
