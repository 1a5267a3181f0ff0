"""The tokenizer kinds of the text contract, one `TokenizerKind` record each, in one registry (`KINDS`).

"wordpiece" (BERT: `vocab.txt`), "byte_bpe" (RoBERTa, ModernBERT: `vocab.json` + `merges.txt`, or a BPE
`tokenizer.json`), "sentencepiece" (XLM-R: `sentencepiece.bpe.model`, fairseq's ids) and "spm" (DeBERTa-v3:
`spm.model`, its own ids, BERT's specials). A kind is asked, never named: a new kind is one record and one
entry in `KINDS`. Imports no TensorFlow.
"""

import dataclasses
import functools
import os
from typing import Callable

from keras_bert.text.byte_bpe_files import (BPE_SPECIALS, MERGES_TXT, VOCAB_JSON, bpe_from_tokenizer_json,
                                            literal_ids, read_merges, read_vocab_json, special_ids)
from keras_bert.text.contract_files import read_json, write_json
from keras_bert.text.huggingface_tokenizer_files import bert_packing, write_huggingface
from keras_bert.text.unigram_files import SPM_SPECIALS, sentencepiece_from_tokenizer_json
from keras_bert.text.vocab import build_vocab

SENTENCEPIECE_MODEL = "sentencepiece.bpe.model"
SPM_MODEL = "spm.model"


@dataclasses.dataclass(frozen=True)
class TokenizerKind:
    """One tokenizer kind: its files, its in-graph tokenizer, its Hugging Face and keras-hub files. `token_lines`:
    the vocabulary is a token list (one a line, the id its line number) cased and normalized by the contract's
    fields (lower_case, normalization, split_special_tokens, max_chars_per_word); else the kind's files hold their
    own casing and its tokenizer counts the tokens."""

    name: str  # TextConfig.kind, ModelFamily.tokenizer, text_config.json's "kind"
    files: tuple  # the contract's files in a folder: (vocab_file's name, merges_file's name or None)
    tokenizer: Callable  # config -> the in-graph tokenizer (its module, imported then, loads TensorFlow)
    write_huggingface: Callable  # (config, directory): its files for AutoTokenizer (the caller copies `files`)
    keras_hub_assets: tuple  # keras-hub's tokenizer assets (assets/tokenizer/...)
    keras_hub_arguments: Callable  # config -> keras-hub's tokenizer class's keyword arguments
    token_lines: bool = False
    learn: Callable = None  # (files, vocab_size, folder, lower_case, learn_params) learns one; None: not learnt
    lstrip_tokens: bool = False  # its tokenizer honours TextConfig.lstrip_tokens (else never set)


def tokenizer_kind(name, source="kind"):
    """The record of the kind `name`; one line naming the kinds for another."""
    if name not in KINDS:
        raise ValueError(f"{source}: tokenizer kind {name!r} is not supported; expected one of {tuple(KINDS)}.")
    return KINDS[name]


def contract_files(config):
    """`[(file name in a folder, path now)]` of the contract's files (`vocab_file`, `merges_file`)."""
    paths = (config.vocab_file, config.merges_file)
    return [(name, path) for name, path in zip(KINDS[config.kind].files, paths) if name]


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
            return (BYTE_BPE.name, *(pair if all(map(os.path.isfile, pair)) and _same_bpe(pair, bpe) else bpe))
        found = sentencepiece_from_tokenizer_json(tokenizer_json)
        if found is not None:
            kind, model = found
            saved = path(KINDS[kind].files[0])
            return kind, saved if _same_bytes(saved, model) else model, None
        kind = (read_json(tokenizer_json).get("model") or {}).get("type")
        if kind not in (None, "WordPiece"):
            raise ValueError(
                f"{tokenizer_json} holds a {kind} tokenizer, which keras_bert cannot run in the graph "
                f"from tokenizer.json alone; put the model's {SENTENCEPIECE_MODEL} (SentencePiece) or "
                f"{VOCAB_JSON} + {MERGES_TXT} (byte-level BPE) beside it.")
    for kind in KINDS.values():
        files = [path(name) for name in kind.files if name]
        if not kind.token_lines and all(map(os.path.isfile, files)):
            return kind.name, files[0], files[1] if len(files) > 1 else None
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


def _write_tokenizer_config(config, directory, tokenizer_class, specials, default_length=512, **settings):
    """tokenizer_config.json (`tokenizer_class`, so AutoTokenizer picks it) + special_tokens_map.json."""
    write_json(os.path.join(directory, "tokenizer_config.json"), dict(
        specials, tokenizer_class=tokenizer_class, model_max_length=config.max_seq_length or default_length,
        **settings))
    write_json(os.path.join(directory, "special_tokens_map.json"), specials)


# fairseq's special names (RoBERTa, XLM-R) and DeBERTa-v3's (transformers adds [MASK] after the pieces).
FAIRSEQ_NAMES = dict({f"{key}_token": token for key, token in BPE_SPECIALS.items()}, bos_token="<s>", eos_token="</s>")
DEBERTA_NAMES = dict(zip(("pad_token", "bos_token", "eos_token", "unk_token"), SPM_SPECIALS),
                     cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")


def _write_byte_bpe_files(config, directory):
    """A byte-level BPE's files: its `tokenizer.json` (transformers 5 builds none from vocab.json + merges.txt)
    and RobertaTokenizer's config (RoBERTa's packing and byte-level settings), or, for one with BERT's special
    names (ModernBERT), a `PreTrainedTokenizerFast` packing `[CLS] A [SEP] B [SEP]`."""
    tokens = read_vocab_json(config.vocab_file)
    ids = special_ids(tokens, config.vocab_file)
    cls, sep = tokens[ids["cls"]], tokens[ids["sep"]]
    if cls != BPE_SPECIALS["cls"]:
        _write_bpe_json(config, directory, tokens, ids, bert_packing(cls, sep, {cls: ids["cls"], sep: ids["sep"]}))
        specials = {f"{key}_token": tokens[i] for key, i in ids.items()}
        return _write_tokenizer_config(config, directory, "PreTrainedTokenizerFast", specials, default_length=8192)
    _write_bpe_json(config, directory, tokens, ids, {"type": "RobertaProcessing", "sep": [sep, ids["sep"]],
                                                     "cls": [cls, ids["cls"]], "trim_offsets": True,
                                                     "add_prefix_space": False})
    return _write_tokenizer_config(config, directory, "RobertaTokenizer", FAIRSEQ_NAMES,
                                   add_prefix_space=False, trim_offsets=True)


def _write_bpe_json(config, directory, tokens, ids, post_processor):
    """A ByteLevel BPE `tokenizer.json` of the contract's vocab and merges with `post_processor`'s packing."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}
    merges, special = read_merges(config.merges_file), set(ids.values())
    write_json(os.path.join(directory, "tokenizer.json"), {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": tokens[i], "single_word": False, "rstrip": False,
                          "lstrip": tokens[i] in config.lstrip_tokens,
                          "normalized": i not in special, "special": i in special}
                         for i in literal_ids(tokens, merges, special)],
        "normalizer": None, "pre_tokenizer": byte_level, "decoder": byte_level, "post_processor": post_processor,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {token: i for i, token in enumerate(tokens)},
                  "merges": [merge.split(" ") for merge in merges]}})


# The in-graph tokenizers and the byte-level BPE learner: their modules load TensorFlow, or the contract itself.
# pylint: disable=import-outside-toplevel
def _wordpiece_tokenizer(config):
    from keras_bert.text.tokenizer import Tokenizer

    return Tokenizer(config.vocab_file, lower_case=config.lower_case, normalization=config.normalization,
                     max_chars_per_word=config.max_chars_per_word, split_special_tokens=config.split_special_tokens,
                     origin=config.origin)


def _byte_bpe_tokenizer(config):
    from keras_bert.text.byte_bpe_tokenizer import ByteBpeTokenizer

    return ByteBpeTokenizer(config.vocab_file, config.merges_file, text_config=config,
                            lstrip_tokens=config.lstrip_tokens)


def _sentencepiece_tokenizer(config):
    from keras_bert.text.sentencepiece_tokenizer import SentencepieceTokenizer

    return SentencepieceTokenizer(config.vocab_file, text_config=config)


def _spm_tokenizer(config):
    from keras_bert.text.spm_tokenizer import SpmTokenizer

    return SpmTokenizer(config.vocab_file, text_config=config)


def _learn_wordpiece(files, vocab_size, folder, lower_case, learn_params):
    build_vocab(files, vocab_size, lower_case=lower_case, output=os.path.join(folder, WORDPIECE.files[0]),
                learn_params=learn_params)


def _learn_byte_bpe(files, vocab_size, folder, lower_case, learn_params):  # pylint: disable=unused-argument
    from keras_bert.text.byte_bpe_learner import learn_byte_bpe

    learn_byte_bpe(files, vocab_size, folder)


WORDPIECE = TokenizerKind(
    "wordpiece", files=("vocab.txt", None), tokenizer=_wordpiece_tokenizer, write_huggingface=write_huggingface,
    keras_hub_assets=("vocabulary.txt",), keras_hub_arguments=lambda c: dict(
        vocabulary=c.vocab_file, lowercase=c.lower_case, strip_accents=c.lower_case,
        special_tokens_in_strings=not c.split_special_tokens), token_lines=True, learn=_learn_wordpiece)
BYTE_BPE = TokenizerKind(
    "byte_bpe", files=(VOCAB_JSON, MERGES_TXT), tokenizer=_byte_bpe_tokenizer, write_huggingface=_write_byte_bpe_files,
    keras_hub_assets=("vocabulary.json", "merges.txt"),
    keras_hub_arguments=lambda c: dict(vocabulary=c.vocab_file, merges=c.merges_file), learn=_learn_byte_bpe,
    lstrip_tokens=True)
# XLM-R's Metaspace adds its own prefix space (add_prefix_space=False would turn that off and change the ids).
SENTENCEPIECE = TokenizerKind(
    "sentencepiece", files=(SENTENCEPIECE_MODEL, None), tokenizer=_sentencepiece_tokenizer,
    write_huggingface=functools.partial(_write_tokenizer_config, tokenizer_class="XLMRobertaTokenizer",
                                        specials=FAIRSEQ_NAMES),
    keras_hub_assets=("vocabulary.spm",), keras_hub_arguments=lambda c: dict(proto=c.vocab_file))
SPM = dataclasses.replace(  # DeBERTa-v3: XLM-R's keras-hub asset (a SentencePiece proto), the model's own ids
    SENTENCEPIECE, name="spm", files=(SPM_MODEL, None), tokenizer=_spm_tokenizer,
    write_huggingface=functools.partial(_write_tokenizer_config, tokenizer_class="DebertaV2Tokenizer",
                                        specials=DEBERTA_NAMES))

KINDS = {kind.name: kind for kind in (WORDPIECE, BYTE_BPE, SENTENCEPIECE, SPM)}
