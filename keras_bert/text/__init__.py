"""keras_bert.text: in-graph WordPiece, byte-level BPE and SentencePiece tokenization, packing and vocabularies (tensorflow-text).

Lazy (module `__getattr__`): `keras_bert.text.text_config` and `.vocab` import no TensorFlow, so
the models can carry their text contract without loading tensorflow-text.
"""

from keras_bert.lazy import lazy_exports

_EXPORTS = {
    "keras_bert.text.byte_bpe_learner": ("learn_byte_bpe",),
    "keras_bert.text.byte_bpe_tokenizer": ("ByteBpeTokenizer",),
    "keras_bert.text.masked_lm_masker": ("MaskedLMMasker",),
    "keras_bert.text.normalization": ("NORMALIZATIONS", "normalize_reference"),
    "keras_bert.text.preprocessor": ("Preprocessor",),
    "keras_bert.text.sentencepiece_tokenizer": ("SentencepieceTokenizer",),
    "keras_bert.text.text_config": ("TextConfig", "find_text_config"),
    "keras_bert.text.tokenizer": ("Tokenizer",),
    "keras_bert.text.vocab": ("SPECIAL_TOKENS", "build_vocab", "load_vocab", "special_token_ids",
                              "write_vocab"),
    "keras_bert.text.vocab_cache": ("build_vocab_once", "check_vocab_settings"),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
