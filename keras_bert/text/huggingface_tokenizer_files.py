"""The text contract in Hugging Face's tokenizer files: `tokenizer_config.json` (`do_lower_case`,
`model_max_length`, special tokens), `special_tokens_map.json` and `tokenizer.json`, read and written
so that `transformers.AutoTokenizer.from_pretrained(folder)` gives the same ids. Imports no TensorFlow."""

import os

from keras_bert.text.contract_files import NO_LIMIT, boolean, integer, keep_bytes, read_json, write_json
from keras_bert.text.vocab import SPECIAL_TOKENS, load_vocab, special_token_ids

HF_CONFIG = "tokenizer_config.json"
HF_SPECIAL_TOKENS = "special_tokens_map.json"
HF_TOKENIZER = "tokenizer.json"
# Hugging Face's names for BERT's special tokens, in `SPECIAL_TOKENS` order.
HF_SPECIAL_NAMES = ("pad_token", "unk_token", "cls_token", "sep_token", "mask_token")
VOCAB_NAME = "vocab.txt"


def is_huggingface_folder(directory):
    """True if `directory` holds Hugging Face's tokenizer files."""
    return any(os.path.isfile(os.path.join(directory, name)) for name in (HF_CONFIG, HF_TOKENIZER))


def check_special_tokens(tokens, source):
    """keras_bert's tokenizer uses BERT's five special tokens; anything else is refused by name."""
    for name, default in zip(HF_SPECIAL_NAMES, SPECIAL_TOKENS):
        token = tokens.get(name, default)
        token = token.get("content") if isinstance(token, dict) else token
        if token not in (default, None):
            raise ValueError(
                f"{source} sets {name}={token!r}; keras_bert supports BERT's special tokens "
                f"{', '.join(SPECIAL_TOKENS)} only.")


def read_huggingface(directory):
    """The contract's fields (TextConfig keywords) of a Hugging Face folder: `tokenizer_config.json`,
    else `tokenizer.json`."""
    config_file = os.path.join(directory, HF_CONFIG)
    if os.path.isfile(config_file):
        raw = read_json(config_file)
        source = config_file
        lower_case = raw.get("do_lower_case", True)  # BertTokenizer's default
        strip_accents, chinese = raw.get("strip_accents"), raw.get("tokenize_chinese_chars", True)
    else:
        source = os.path.join(directory, HF_TOKENIZER)
        normalizer = read_json(source).get("normalizer") or {}
        raw = {}
        lower_case = normalizer.get("lowercase", True)
        strip_accents, chinese = normalizer.get("strip_accents"), normalizer.get("handle_chinese_chars", True)
    if strip_accents is not None and bool(strip_accents) != bool(lower_case):
        raise ValueError(
            f"{source} sets strip_accents={strip_accents} with lowercase={lower_case}; keras_bert "
            "strips accents exactly when it lowercases (as BERT does).")
    if not chinese:
        raise ValueError(f"{source} turns off tokenize_chinese_chars; keras_bert always splits CJK "
                         "ideographs (as BERT does).")
    check_special_tokens(raw, source)
    max_length = integer(raw.get("model_max_length"), "model_max_length", source)
    max_length = max_length if max_length is not None and max_length < NO_LIMIT else None
    return dict(lower_case=boolean(lower_case, "do_lower_case", source),
                      split_special_tokens=boolean(raw.get("split_special_tokens", False),
                                                    "split_special_tokens", source),
                      max_seq_length=max_length, source=source)


def huggingface_lstrip_tokens(directory):
    """The added tokens of a Hugging Face folder that take the whitespace before them (`lstrip: true`), as
    `tokenizer.json`'s `added_tokens` say (else `tokenizer_config.json`'s `added_tokens_decoder`), in its order."""
    path = os.path.join(directory, HF_TOKENIZER)
    if os.path.isfile(path):
        added = read_json(path).get("added_tokens") or []
    else:
        path = os.path.join(directory, HF_CONFIG)
        added = list((read_json(path).get("added_tokens_decoder") or {}).values()) if os.path.isfile(path) else []
    return tuple(t.get("content") for t in added if isinstance(t, dict) and t.get("lstrip") is True)


def write_huggingface(config, directory):
    """tokenizer_config.json, special_tokens_map.json and tokenizer.json as BertTokenizerFast saves them."""
    vocab = load_vocab(config.vocab_file)
    ids = special_token_ids(vocab, f"Vocabulary file {config.vocab_file!r}")
    specials = dict(zip(HF_SPECIAL_NAMES, SPECIAL_TOKENS))
    write_json(os.path.join(directory, HF_CONFIG), dict(
        specials, tokenizer_class="BertTokenizer", do_lower_case=config.lower_case,
        strip_accents=None, tokenize_chinese_chars=True, do_basic_tokenize=True,
        split_special_tokens=config.split_special_tokens, clean_up_tokenization_spaces=True,
        model_max_length=config.max_seq_length or 512))
    write_json(os.path.join(directory, HF_SPECIAL_TOKENS), specials)
    write_json(os.path.join(directory, HF_TOKENIZER), {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for t in SPECIAL_TOKENS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": config.lower_case},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": bert_packing("[CLS]", "[SEP]", ids),
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": config.max_chars_per_word,
                  "vocab": {token: i for i, token in enumerate(vocab)}},
    })


def bert_packing(cls, sep, ids):
    """tokenizer.json's post-processor packing `cls A sep B sep` (B's type id 1); `ids`: token -> id."""
    def template(*parts):
        return [{"SpecialToken" if p in (cls, sep) else "Sequence": {"id": p, "type_id": t}} for p, t in parts]
    return {"type": "TemplateProcessing", "single": template((cls, 0), ("A", 0), (sep, 0)),
            "pair": template((cls, 0), ("A", 0), (sep, 0), ("B", 1), (sep, 1)),
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in (cls, sep)}}


def vocab_from_tokenizer_json(path):
    """The WordPiece vocabulary of a Hugging Face `tokenizer.json` as a kept vocab.txt (transformers
    5 saves a BERT tokenizer as tokenizer.json without vocab.txt), or None if there is none."""
    if not os.path.isfile(path):
        return None
    model = read_json(path).get("model") or {}
    vocab = model.get("vocab")
    if model.get("type") != "WordPiece" or not isinstance(vocab, dict) or not vocab:
        return None
    tokens = sorted(vocab, key=vocab.get)
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError(f"{path}: the WordPiece vocab's ids are not 0..{len(tokens) - 1} without gaps; "
                         f"save the tokenizer again or put its {VOCAB_NAME} beside it.")
    return keep_bytes(("\n".join(tokens) + "\n").encode("utf-8"))
