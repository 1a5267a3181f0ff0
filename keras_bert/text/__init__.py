"""keras_bert.text: in-graph WordPiece tokenization, packing and vocabularies (tensorflow-text)."""

from keras_bert.text.masked_lm_masker import MaskedLMMasker
from keras_bert.text.normalization import NORMALIZATIONS, normalize_reference
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.text_config import TextConfig, find_text_config
from keras_bert.text.tokenizer import Tokenizer
from keras_bert.text.vocab import SPECIAL_TOKENS, build_vocab, load_vocab, special_token_ids, write_vocab
