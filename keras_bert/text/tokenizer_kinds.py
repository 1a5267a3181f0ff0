"""The tokenizer kinds of the text contract: each kind's files, its tokenizer, its Hugging Face files.

"wordpiece" (BERT: `vocab.txt`), "byte_bpe" (RoBERTa, ModernBERT: `vocab.json` + `merges.txt`, or a BPE
`tokenizer.json`), "sentencepiece" (XLM-R: `sentencepiece.bpe.model`, fairseq's ids) and "spm" (DeBERTa-v3:
`spm.model`, its own ids, BERT's specials). Imports no TensorFlow.
"""

import os

from keras_bert.text.byte_bpe_files import (BPE_SPECIALS, MERGES_TXT, VOCAB_JSON, bpe_from_tokenizer_json,
                                            literal_ids, read_merges, read_vocab_json, special_ids)
from keras_bert.text.contract_files import read_json, write_json
from keras_bert.text.huggingface_tokenizer_files import bert_packing
from keras_bert.text.unigram_files import SPM_SPECIALS, sentencepiece_from_tokenizer_json

KINDS = ("wordpiece", "byte_bpe", "sentencepiece", "spm")
SENTENCEPIECE_MODEL = "sentencepiece.bpe.model"
SPM_MODEL = "spm.model"
# The contract's files of each kind, as saved in a folder: (vocab_file's name, merges_file's name).
FILE_NAMES = {"wordpiece": ("vocab.txt", None), "byte_bpe": (VOCAB_JSON, MERGES_TXT),
              "sentencepiece": (SENTENCEPIECE_MODEL, None), "spm": (SPM_MODEL, None)}
# keras-hub's tokenizer assets of each kind (`assets/tokenizer/`): a WordPiece `.txt`, a byte-level BPE's `.json` +
# merges, a SentencePiece model (`.spm`, whichever ids the kind gives its pieces).
KERAS_HUB_ASSETS = {"wordpiece": ("vocabulary.txt",), "byte_bpe": ("vocabulary.json", "merges.txt"),
                    "sentencepiece": ("vocabulary.spm",), "spm": ("vocabulary.spm",)}
# transformers' tokenizer class of each non-WordPiece kind (AutoTokenizer reads it from tokenizer_config.json).
HF_CLASSES = {"byte_bpe": "RobertaTokenizer", "sentencepiece": "XLMRobertaTokenizer", "spm": "DebertaV2Tokenizer"}


def check_kind(kind, source="kind"):
    if kind not in KINDS:
        raise ValueError(f"{source}: tokenizer kind {kind!r} is not supported; expected one of {KINDS}.")


def make_tokenizer(config):
    """The in-graph tokenizer of a non-WordPiece `TextConfig`."""
    # pylint: disable=import-outside-toplevel
    if config.kind == "byte_bpe":
        from keras_bert.text.byte_bpe_tokenizer import ByteBpeTokenizer

        return ByteBpeTokenizer(config.vocab_file, config.merges_file, text_config=config)
    if config.kind == "spm":
        from keras_bert.text.spm_tokenizer import SpmTokenizer

        return SpmTokenizer(config.vocab_file, text_config=config)
    from keras_bert.text.sentencepiece_tokenizer import SentencepieceTokenizer

    return SentencepieceTokenizer(config.vocab_file, text_config=config)


def contract_files(config):
    """`[(file name in a folder, path now)]` of the contract's files (`vocab_file`, `merges_file`)."""
    paths = (config.vocab_file, config.merges_file)
    return [(name, path) for name, path in zip(FILE_NAMES[config.kind], paths) if name]


def find_files(directory):
    """`(kind, vocab_file, merges_file)` of a folder holding byte-level BPE or SentencePiece files,
    else None (a WordPiece folder, or none). Its `tokenizer.json` is read first, as transformers 5 reads
    it: `vocab.json` + `merges.txt` or `sentencepiece.bpe.model` beside it are used only where they hold
    the same tokenizer (a stale pair is not). A `tokenizer.json` of a model keras_bert cannot run in the
    graph is one line naming it."""
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    tokenizer_json = path("tokenizer.json")
    if os.path.isfile(tokenizer_json):
        bpe = bpe_from_tokenizer_json(tokenizer_json)
        if bpe is not None:
            pair = (path(VOCAB_JSON), path(MERGES_TXT))
            return ("byte_bpe", *(pair if all(map(os.path.isfile, pair)) and _same_bpe(pair, bpe) else bpe))
        found = sentencepiece_from_tokenizer_json(tokenizer_json)
        if found is not None:
            kind, model = found
            saved = path(FILE_NAMES[kind][0])
            return kind, saved if _same_bytes(saved, model) else model, None
        kind = (read_json(tokenizer_json).get("model") or {}).get("type")
        if kind not in (None, "WordPiece"):
            raise ValueError(
                f"{tokenizer_json} holds a {kind} tokenizer, which keras_bert cannot run in the graph "
                f"from tokenizer.json alone; put the model's {SENTENCEPIECE_MODEL} (SentencePiece) or "
                f"{VOCAB_JSON} + {MERGES_TXT} (byte-level BPE) beside it.")
    if os.path.isfile(path(VOCAB_JSON)) and os.path.isfile(path(MERGES_TXT)):
        return "byte_bpe", path(VOCAB_JSON), path(MERGES_TXT)
    for kind in ("sentencepiece", "spm"):
        if os.path.isfile(path(FILE_NAMES[kind][0])):
            return kind, path(FILE_NAMES[kind][0]), None
    return None


def _same_bpe(pair, converted):
    """The folder's vocab.json + merges.txt hold the tokenizer.json's vocabulary and merges."""
    try:
        return read_vocab_json(pair[0]) == read_vocab_json(converted[0]) \
            and read_merges(pair[1]) == read_merges(converted[1])
    except ValueError:  # a broken stale pair is not read: tokenizer.json is
        return False


def _same_bytes(saved, converted):
    """The folder's sentencepiece.bpe.model segments as the tokenizer.json (same pieces, scores and
    normalizer as the converted model)."""
    if not os.path.isfile(saved):
        return False
    # pylint: disable=import-outside-toplevel
    from sentencepiece import sentencepiece_model_pb2

    protos = []
    for name in (saved, converted):
        proto = sentencepiece_model_pb2.ModelProto()
        try:
            with open(name, "rb") as f:
                proto.ParseFromString(f.read())
        except Exception:  # pylint: disable=broad-except
            return False
        protos.append(proto)
    return [(p.piece, p.score) for p in protos[0].pieces] == [(p.piece, p.score) for p in protos[1].pieces] \
        and protos[0].normalizer_spec.precompiled_charsmap == protos[1].normalizer_spec.precompiled_charsmap


def write_huggingface_kind(config, directory):
    """tokenizer_config.json + special_tokens_map.json for RoBERTa / XLM-R's tokenizer classes (the vocabulary
    files are copied by the caller), so AutoTokenizer.from_pretrained gives the same ids; a byte-level BPE also
    gets its `tokenizer.json` (transformers 5 builds none from vocab.json + merges.txt): RoBERTa's packing, or
    `[CLS] A [SEP] B [SEP]` for one with BERT's special names (ModernBERT)."""
    if config.kind == "byte_bpe":
        tokens = read_vocab_json(config.vocab_file)
        ids = special_ids(tokens, config.vocab_file)
        if tokens[ids["cls"]] != BPE_SPECIALS["cls"]:
            return _write_bert_named_bpe(config, directory, tokens, ids)
        cls, sep = ((tokens[ids[key]], ids[key]) for key in ("cls", "sep"))
        _write_bpe_json(config, directory, tokens, ids, {"type": "RobertaProcessing", "sep": sep, "cls": cls,
                                                         "trim_offsets": True, "add_prefix_space": False})
    specials = {f"{key}_token": token for key, token in BPE_SPECIALS.items()}
    specials.update(bos_token="<s>", eos_token="</s>")
    if config.kind == "spm":  # DeBERTa's names; transformers adds [MASK] after the pieces
        specials = dict(zip(("pad_token", "bos_token", "eos_token", "unk_token"), SPM_SPECIALS),
                        cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    # RoBERTa's byte-level settings; XLM-R's Metaspace adds its own prefix space (add_prefix_space=False
    # would turn that off and change the ids).
    settings = dict(add_prefix_space=False, trim_offsets=True) if config.kind == "byte_bpe" else {}
    write_json(os.path.join(directory, "tokenizer_config.json"), dict(
        specials, tokenizer_class=HF_CLASSES[config.kind], model_max_length=config.max_seq_length or 512,
        **settings))
    write_json(os.path.join(directory, "special_tokens_map.json"), specials)


def _write_bert_named_bpe(config, directory, tokens, ids):
    """ModernBERT's tokenizer files: a ByteLevel BPE `tokenizer.json` packing `[CLS] A [SEP] B [SEP]`."""
    specials = {f"{key}_token": tokens[i] for key, i in ids.items()}
    cls, sep = tokens[ids["cls"]], tokens[ids["sep"]]
    _write_bpe_json(config, directory, tokens, ids, bert_packing(cls, sep, {cls: ids["cls"], sep: ids["sep"]}))
    write_json(os.path.join(directory, "tokenizer_config.json"), dict(
        specials, tokenizer_class="PreTrainedTokenizerFast", model_max_length=config.max_seq_length or 8192))
    write_json(os.path.join(directory, "special_tokens_map.json"), specials)


def _write_bpe_json(config, directory, tokens, ids, post_processor):
    """A ByteLevel BPE `tokenizer.json` of the contract's vocab and merges with `post_processor`'s packing."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}
    merges, special = read_merges(config.merges_file), set(ids.values())
    write_json(os.path.join(directory, "tokenizer.json"), {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": tokens[i], "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": i not in special, "special": i in special}
                         for i in literal_ids(tokens, merges, special)],
        "normalizer": None, "pre_tokenizer": byte_level, "decoder": byte_level, "post_processor": post_processor,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {token: i for i, token in enumerate(tokens)},
                  "merges": [merge.split(" ") for merge in merges]}})
