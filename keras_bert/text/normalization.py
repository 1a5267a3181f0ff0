"""BERT's reference text normalization (Hugging Face's BertNormalizer + BertPreTokenizer) as
TensorFlow string ops: cleaning, CJK spacing, accent stripping, lowercasing, punctuation splits."""

import re

import tensorflow as tf
import tensorflow_text as text

from keras_bert.choices import NORMALIZATIONS  # noqa: F401  (re-exported)
from keras_bert.text.vocab import SPECIAL_TOKENS


# Hugging Face `tokenizers` classifies characters with older Unicode tables (its
# `unicode_categories` crate) than TensorFlow's RE2, so characters that later Unicode versions
# added or re-categorized are treated differently. These classes list them: derived by comparing
# `BertNormalizer`/`BertPreTokenizer` with the patterns below on every code point, and verified
# by tests/text/test_normalization.py (which prints the ranges to update if a library moves).
# Format/control characters (Cf) that tokenizers keeps:
_HF_KEPT_FORMAT = r"\x{890}-\x{891}\x{8E2}\x{110CD}\x{13430}-\x{1343F}"
# Marks (Mn) that tokenizers does not strip, and one (Mc today, Mn in old Unicode) that it does:
_HF_KEPT_MARKS = (
    r"\x{7FD}\x{898}-\x{89F}\x{8CA}-\x{8E1}\x{9FE}\x{AFA}-\x{AFF}\x{B55}\x{C04}\x{C3C}"
    r"\x{D00}\x{D3B}-\x{D3C}\x{D81}\x{EBA}\x{ECE}\x{180F}\x{1885}-\x{1886}"
    r"\x{1ABF}-\x{1ACE}\x{1DF6}-\x{1DFB}\x{A82C}\x{A8C5}\x{A8FF}\x{A9BD}"
    r"\x{10D24}-\x{10D27}\x{10EAB}-\x{10EAC}\x{10EFD}-\x{10EFF}\x{10F46}-\x{10F50}"
    r"\x{10F82}-\x{10F85}\x{11070}\x{11073}-\x{11074}\x{110C2}\x{111C9}\x{111CF}\x{1123E}"
    r"\x{11241}\x{1133B}\x{11438}-\x{1143F}\x{11442}-\x{11444}\x{11446}\x{1145E}"
    r"\x{1182F}-\x{11837}\x{11839}-\x{1183A}\x{1193B}-\x{1193C}\x{1193E}\x{11943}"
    r"\x{119D4}-\x{119D7}\x{119DA}-\x{119DB}\x{119E0}\x{11A01}-\x{11A0A}"
    r"\x{11A33}-\x{11A38}\x{11A3B}-\x{11A3E}\x{11A47}\x{11A51}-\x{11A56}"
    r"\x{11A59}-\x{11A5B}\x{11A8A}-\x{11A96}\x{11A98}-\x{11A99}\x{11C30}-\x{11C36}"
    r"\x{11C38}-\x{11C3D}\x{11C3F}\x{11C92}-\x{11CA7}\x{11CAA}-\x{11CB0}"
    r"\x{11CB2}-\x{11CB3}\x{11CB5}-\x{11CB6}\x{11D31}-\x{11D36}\x{11D3A}"
    r"\x{11D3C}-\x{11D3D}\x{11D3F}-\x{11D45}\x{11D47}\x{11D90}-\x{11D91}\x{11D95}\x{11D97}"
    r"\x{11EF3}-\x{11EF4}\x{11F00}-\x{11F01}\x{11F36}-\x{11F3A}\x{11F40}\x{11F42}\x{13440}"
    r"\x{13447}-\x{13455}\x{16F4F}\x{16FE4}\x{1CF00}-\x{1CF2D}\x{1CF30}-\x{1CF46}"
    r"\x{1E000}-\x{1E006}\x{1E008}-\x{1E018}\x{1E01B}-\x{1E021}\x{1E023}-\x{1E024}"
    r"\x{1E026}-\x{1E02A}\x{1E08F}\x{1E130}-\x{1E136}\x{1E2AE}\x{1E2EC}-\x{1E2EF}"
    r"\x{1E4EC}-\x{1E4EF}\x{1E944}-\x{1E94A}"
)
_HF_STRIPPED_MARKS = r"\x{1734}"
# Punctuation (P*) that tokenizers does not split on, and two characters it does split on:
_HF_NOT_PUNCTUATION = (
    r"\x{61D}\x{9FD}\x{A76}\x{C77}\x{C84}\x{1B7D}-\x{1B7E}\x{2E43}-\x{2E4F}"
    r"\x{2E52}-\x{2E5D}\x{10EAD}\x{10F55}-\x{10F59}\x{10F86}-\x{10F89}\x{1144B}-\x{1144F}"
    r"\x{1145A}-\x{1145B}\x{1145D}\x{11660}-\x{1166C}\x{116B9}\x{1183B}\x{11944}-\x{11946}"
    r"\x{119E2}\x{11A3F}-\x{11A46}\x{11A9A}-\x{11A9C}\x{11A9E}-\x{11AA2}"
    r"\x{11B00}-\x{11B09}\x{11C41}-\x{11C45}\x{11C70}-\x{11C71}\x{11EF7}-\x{11EF8}"
    r"\x{11F43}-\x{11F4F}\x{11FFF}\x{12FF1}-\x{12FF2}\x{16E97}-\x{16E9A}\x{16FE2}"
    r"\x{1E95E}-\x{1E95F}"
)
_HF_PUNCTUATION = r"\x{166D}\x{111C9}"

# BERT's reference normalization (google-research/bert BasicTokenizer, HF `BertNormalizer` +
# `BertPreTokenizer`), written as RE2 patterns for `tf.strings.regex_replace`.
# Dropped: NUL, U+FFFD and control, format, private-use and surrogate characters (Cc Cf Co Cs)
# except \t \n \r. Unassigned code points (Cn) are kept, as Hugging Face does.
_DROP = r"[^\t\n\r\P{Cc}]|[^\P{Cf}" + _HF_KEPT_FORMAT + r"]|[\p{Co}\p{Cs}\x{FFFD}]"
# Whitespace (Rust `char::is_whitespace` minus the control characters dropped above) -> " ".
_WHITESPACE = r"[\t\n\r\p{Z}]"
# CJK ideographs get spaces around them: BERT's `_is_chinese_char` ranges, except that tokenizers
# starts Extension E at U+2B920 where BERT has U+2B820.
_CJK = (r"([\x{4E00}-\x{9FFF}\x{3400}-\x{4DBF}\x{20000}-\x{2A6DF}\x{2A700}-\x{2B73F}"
        r"\x{2B740}-\x{2B81F}\x{2B920}-\x{2CEAF}\x{F900}-\x{FAFF}\x{2F800}-\x{2FA1F}])")
# Combining marks stripped from accented letters in lower-case mode.
_MARKS = r"[^\P{Mn}" + _HF_KEPT_MARKS + r"]|[" + _HF_STRIPPED_MARKS + r"]"
# Punctuation = Unicode P* plus all ASCII punctuation (which adds $ + < = > ^ ` | ~).
# (`[^\P{P}X]` is RE2 for "P* except X": not (not-P or X).)
_PUNCTUATION = (r"([^\P{P}" + _HF_NOT_PUNCTUATION + r"]|[!-/:-@\[-`{-~" + _HF_PUNCTUATION
                + r"])")

# BERT's special tokens as they appear literally in text (matched before normalization, as HF does).
SPECIAL_TOKENS_PATTERN = "|".join(re.escape(token) for token in SPECIAL_TOKENS)


def normalize_reference(texts, lower_case=True):
    """BERT's reference text normalization as TensorFlow string ops (any shape).

    Cleans (invalid UTF-8 -> U+FFFD; drops NUL, U+FFFD and control/format characters;
    whitespace -> space), pads CJK ideographs with spaces and, if `lower_case`, applies NFD,
    strips combining marks (Mn) and lowercases — in Hugging Face `BertNormalizer`'s order.
    Splitting into words is left to the caller.

    Args:
        texts: `tf.string` tensor.
        lower_case: lowercase and strip accents.

    Returns:
        `tf.string` tensor of the same shape.

    Example:
        >>> normalize_reference(tf.constant(["Héllo\\x07 Wörld™"])).numpy()
        array([b'hello world\\xe2\\x84\\xa2'], dtype=object)
    """
    texts = tf.strings.unicode_transcode(texts, "UTF-8", "UTF-8", errors="replace",
                                         replacement_char=0xFFFD)
    texts = tf.strings.regex_replace(texts, _DROP, "")
    texts = tf.strings.regex_replace(texts, _WHITESPACE, " ")
    texts = tf.strings.regex_replace(texts, _CJK, r" \1 ")
    if lower_case:
        texts = text.normalize_utf8(texts, "NFD")
        texts = tf.strings.regex_replace(texts, _MARKS, "")
        # ICU lowercases a word-final capital sigma to "ς"; BERT maps each character alone ("σ").
        texts = tf.strings.regex_replace(texts, "\u03a3", "\u03c3")
        texts = tf.strings.lower(texts, encoding="utf-8")
    return texts


def split_words_reference(texts):
    """Splits normalized text on whitespace and isolates punctuation: [...] -> [..., (words)]."""
    return tf.strings.split(pad_punctuation(texts))


def pad_punctuation(texts):
    return tf.strings.regex_replace(texts, _PUNCTUATION, r" \1 ")
