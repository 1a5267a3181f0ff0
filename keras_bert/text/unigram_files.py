"""A Unigram `tokenizer.json` (XLM-R or DeBERTa-v3 as transformers 5 and sentence-transformers 6 save it) as
the SentencePiece model the graph runs (`sentencepiece.bpe.model`, `spm.model`). Imports no TensorFlow.

transformers builds that `tokenizer.json` from the SentencePiece model: the pieces and scores after
fairseq's four specials, the normalizer's `precompiled_charsmap`, a `Metaspace` `▁` prefix and a
whitespace split. Put back into a `ModelProto` (the `sentencepiece` wheel's own schema), the
`sentencepiece` library segments as it did before the conversion.
"""

import base64

from keras_bert.text.contract_files import keep_bytes, read_json

# fairseq's ids, which XLM-R's embeddings use (`SentencepieceTokenizer`): SentencePiece id + 1.
FAIRSEQ_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")
# DeBERTa-v3's specials among its SentencePiece pieces (pad, bos, eos, unk), its ids the pieces' own.
SPM_SPECIALS = ("[PAD]", "[CLS]", "[SEP]", "[UNK]")


def sentencepiece_from_tokenizer_json(path):
    """A `tokenizer.json` whose model is Unigram -> `(kind, kept SentencePiece model file)`, else None: kind
    "sentencepiece" for XLM-R's layout (`<s> <pad> </s> <unk>` first, `<mask>` last: fairseq's ids), "spm" for
    DeBERTa-v3's (the model's own pieces with `[PAD] [CLS] [SEP] [UNK]` among them, `[MASK]` added after).

    One line names the file and what it holds where the layout is neither or its normalizer / pre-tokenizer
    is not one SentencePiece can run.
    """
    raw = read_json(path)
    model = raw.get("model") or {}
    if model.get("type") != "Unigram":
        return None
    vocab = model.get("vocab")
    pieces = [p[0] for p in vocab] if isinstance(vocab, list) and vocab else []
    added = [t.get("content") for t in raw.get("added_tokens") or [] if t.get("id", 0) >= len(pieces)]
    deberta = set(SPM_SPECIALS) <= set(pieces) and model.get("unk_id") == pieces.index("[UNK]")
    xlm_r = tuple(pieces[:4]) == FAIRSEQ_SPECIALS and pieces[-1] == "<mask>" and model.get("unk_id") == 3
    if deberta and added == ["[MASK]"]:
        kind, fairseq = "spm", False
    elif added and (deberta or xlm_r):
        raise ValueError(f"{path} adds tokens {added[:3]} after the Unigram vocabulary; keras_bert runs the "
                         "SentencePiece vocabulary only (no added tokens but DeBERTa's [MASK]).")
    elif xlm_r:
        kind, fairseq = "sentencepiece", True
    else:
        raise ValueError(
            f"{path}: the Unigram vocabulary is not laid out as XLM-R's ({', '.join(FAIRSEQ_SPECIALS)} "
            f"first, <mask> last, unk_id 3) or DeBERTa-v3's ({', '.join(SPM_SPECIALS)} pieces, [MASK] added); "
            "save the tokenizer from such a SentencePiece model, or put its model file beside it.")
    charsmap = _charsmap(raw.get("normalizer"), path)
    prefix = _metaspace(raw.get("pre_tokenizer"), path)
    # pylint: disable=import-outside-toplevel
    from sentencepiece import sentencepiece_model_pb2

    proto = sentencepiece_model_pb2.ModelProto()
    piece = sentencepiece_model_pb2.ModelProto.SentencePiece
    trainer = proto.trainer_spec
    if fairseq:
        proto.pieces.add(piece="<unk>", score=0.0, type=piece.UNKNOWN)
        for token in ("<s>", "</s>"):
            proto.pieces.add(piece=token, score=0.0, type=piece.CONTROL)
        trainer.unk_id, trainer.bos_id, trainer.eos_id, trainer.pad_id = 0, 1, 2, -1
    else:  # DeBERTa's: every piece at its own id, the specials where they are
        trainer.pad_id, trainer.bos_id, trainer.eos_id, trainer.unk_id = (pieces.index(t) for t in SPM_SPECIALS)
    for token, score in (vocab[4:-1] if fairseq else vocab):
        byte = len(token) == 6 and token.startswith("<0x") and token.endswith(">")
        kind_of = piece.UNKNOWN if token == "[UNK]" and not fairseq else piece.CONTROL if (
            token in SPM_SPECIALS and not fairseq) else piece.BYTE if byte and model.get("byte_fallback") \
            else piece.NORMAL
        proto.pieces.add(piece=token, score=float(score), type=kind_of)
    trainer.model_type = sentencepiece_model_pb2.TrainerSpec.UNIGRAM
    trainer.vocab_size = len(proto.pieces)
    trainer.byte_fallback = bool(model.get("byte_fallback"))
    normalizer = proto.normalizer_spec
    normalizer.name = "nmt_nfkc" if charsmap else "identity"
    normalizer.precompiled_charsmap = charsmap
    normalizer.add_dummy_prefix = prefix
    normalizer.remove_extra_whitespaces = True  # transformers' WhitespaceSplit (or ` {2,}` Replace)
    normalizer.escape_whitespaces = True
    return kind, keep_bytes(proto.SerializeToString())


def _steps(part, key):
    """A `Sequence` normalizer / pre-tokenizer as its list of steps (None: none)."""
    if not part:
        return []
    return part.get(key, []) if part.get("type") == "Sequence" else [part]


def _charsmap(normalizer, path):
    """The `Precompiled` normalizer's charsmap bytes (b"" without one); a ` {2,}` -> ` ` Replace is
    SentencePiece's whitespace collapsing; anything else is refused by name."""
    charsmap = b""
    for step in _steps(normalizer, "normalizers"):
        kind = step.get("type")
        if kind == "Precompiled":
            charsmap = base64.b64decode(step.get("precompiled_charsmap") or "")
        elif not (kind == "Replace" and step.get("content") == " ") and kind != "Strip":  # SentencePiece strips
            raise ValueError(f"{path}: the Unigram tokenizer's normalizer {kind!r} is not one SentencePiece "
                             "runs; put the model's sentencepiece.bpe.model beside it.")
    return charsmap


def _metaspace(pre_tokenizer, path):
    """SentencePiece's `add_dummy_prefix` from the `Metaspace` (+ `WhitespaceSplit`) pre-tokenizer."""
    steps = _steps(pre_tokenizer, "pretokenizers")
    kinds = [step.get("type") for step in steps]
    metaspace = [step for step in steps if step.get("type") == "Metaspace"]
    if not metaspace or set(kinds) - {"Metaspace", "WhitespaceSplit"} \
            or metaspace[0].get("replacement", "\u2581") != "\u2581":
        raise ValueError(f"{path}: the Unigram tokenizer's pre-tokenizer {kinds} is not SentencePiece's "
                         "(Metaspace with ▁); put the model's sentencepiece.bpe.model beside it.")
    scheme = metaspace[0].get("prepend_scheme", "always" if metaspace[0].get("add_prefix_space", True)
                              else "never")
    return scheme != "never"
