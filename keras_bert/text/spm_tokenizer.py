"""In-graph SentencePiece tokenizer with the model's own ids and BERT's specials (DeBERTa-v3's `spm.model`)."""

from keras_bert.text.sentencepiece_tokenizer import SentencepieceTokenizer

SPECIALS = {"pad_id": "[PAD]", "cls_id": "[CLS]", "sep_id": "[SEP]", "unk_id": "[UNK]"}
MASK_TOKEN = "[MASK]"


class SpmTokenizer(SentencepieceTokenizer):
    """DeBERTa-v3's SentencePiece (`spm.model`) in the TensorFlow graph: ids are SentencePiece's own, its
    pieces `[PAD]` (0), `[CLS]` (1), `[SEP]` (2), `[UNK]` (3) are the specials, and `[MASK]` is appended
    after the pieces (as transformers' `DebertaV2Tokenizer` adds it); a literal special token in text is its id, as
    transformers reads it. Pairs pack as BERT's, `[CLS] A [SEP] B [SEP]`. Segmentation, offsets and detokenizing
    are `SentencepieceTokenizer`'s, but a `▁` piece's span keeps the space before it, as transformers' DeBERTa-v2
    fast tokenizer reports it (`span_keeps_space`).

    Args:
        model_file: the SentencePiece model (`spm.model`).
        text_config: the `TextConfig` it is made from.

    Example:
        >>> SpmTokenizer("spm.model").tokenize(["Hello world"])  # doctest: +SKIP
    """

    pair_layout = "bert"
    mask_token = MASK_TOKEN
    span_keeps_space = True  # DeBERTa-v2's converted tokenizer keeps a `▁` piece's space in its span
    special_pattern = r"\[PAD\]|\[CLS\]|\[SEP\]|\[UNK\]|[\s\p{Z}]*\[MASK\]"  # as transformers splits them out

    def _vocabulary(self, spm_pieces):
        for name, token in SPECIALS.items():
            if token not in spm_pieces:
                raise ValueError(f"{self.model_file} has no {token} piece; DeBERTa's spm.model holds [PAD], [CLS], "
                                 "[SEP] and [UNK] (train it with pad_piece, bos_piece, eos_piece and unk_piece).")
            setattr(self, name, spm_pieces.index(token))
        self.mask_id = len(spm_pieces)
        return (*spm_pieces, MASK_TOKEN)

    def special_ids(self):
        return {token: getattr(self, name) for name, token in SPECIALS.items()}

    def _from_spm(self, spm_ids):
        return spm_ids

    def _to_spm(self, ids):
        return ids

    @property
    def continues_word(self):
        """Per id: the piece continues the word before it (no leading `▁`; special ids never)."""
        specials = {self.pad_id, self.cls_id, self.sep_id, self.unk_id, self.mask_id}
        return [i not in specials and not t.startswith("\u2581") for i, t in enumerate(self._token_list.tokens)]
