"""Byte-level BPE's files: `vocab.json` + `merges.txt`, or the BPE model inside a `tokenizer.json`.

Read into plain Python (token list, merge pairs); one-line errors name the file. Imports no TensorFlow.
"""

import json
import os

from keras_bert.text.contract_files import keep_bytes, read_json

VOCAB_JSON = "vocab.json"
MERGES_TXT = "merges.txt"
# RoBERTa's special tokens, and BERT's names (ModernBERT's byte-level BPE uses them).
BPE_SPECIALS = {"cls": "<s>", "pad": "<pad>", "sep": "</s>", "unk": "<unk>", "mask": "<mask>"}
BERT_NAMED_SPECIALS = {"cls": "[CLS]", "pad": "[PAD]", "sep": "[SEP]", "unk": "[UNK]", "mask": "[MASK]"}


def bytes_to_unicode():
    """GPT-2's byte -> printable character table (`Ġ` for the space byte): a list of 256 strings."""
    printable = {*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), 256)}
    others = iter(range(256, 512))  # the other bytes get characters 256, 257, ... in byte order
    return [chr(byte) if byte in printable else chr(next(others)) for byte in range(256)]


def read_vocab_json(path):
    """`vocab.json` (token -> id) as the list of tokens by id; ids must be 0..n-1 without gaps."""
    vocab = read_json(path)
    if not isinstance(vocab, dict) or not vocab:
        raise ValueError(f"{path} is not a BPE vocabulary (a JSON object token -> id); pass the "
                         f"tokenizer's {VOCAB_JSON}.")
    return tokens_by_id(vocab, path)


def tokens_by_id(vocab, source):
    tokens = sorted(vocab, key=vocab.get)
    if [vocab[t] for t in tokens] != list(range(len(tokens))):
        raise ValueError(f"{source}: the vocabulary's ids are not 0..{len(tokens) - 1} without gaps; "
                         "save the tokenizer again.")
    return tokens


def read_merges(path):
    """`merges.txt` as a list of `"left right"` strings (the `#version` line skipped)."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        lines = [line.rstrip("\r") for line in raw.decode("utf-8").split("\n")]
    except UnicodeDecodeError as error:  # a file cut inside a character, or not UTF-8
        line = raw[:error.start].count(b"\n") + 1
        raise ValueError(f"{path}: line {line} is not UTF-8 text (byte {raw[error.start]:#04x} at offset "
                         f"{error.start}: the file is cut inside a character, or another encoding); "
                         f"pass the tokenizer's "
                         f"{MERGES_TXT} as saved.") from None
    merges = [line for line in lines if line and not line.startswith("#version")]
    bad = [line for line in merges if len(line.split(" ")) != 2]
    if bad:
        raise ValueError(f"{path}: merge rule {bad[0]!r} is not two tokens separated by one space; "
                         f"pass the tokenizer's {MERGES_TXT}.")
    return merges


def bpe_from_tokenizer_json(path):
    """A `tokenizer.json` whose model is BPE -> kept `(vocab.json, merges.txt)` copies, else None."""
    if not os.path.isfile(path):
        return None
    model = read_json(path).get("model") or {}
    if model.get("type") != "BPE":
        return None
    vocab = dict(model.get("vocab") or {})
    for added in read_json(path).get("added_tokens") or []:  # special tokens kept outside the model
        vocab.setdefault(added.get("content"), added.get("id"))
    tokens_by_id(vocab, path)  # checks the ids
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges") or []]
    vocab = json.dumps(vocab, ensure_ascii=False).encode("utf-8")
    return keep_bytes(vocab), keep_bytes(("\n".join(merges) + "\n").encode("utf-8"))


def literal_ids(tokens, merges, special):
    """Ids of the tokens matched as literal text before BPE (Hugging Face's `added_tokens`): the special
    ids, and every token after them that is neither one byte's character nor made by a merge (`add_tokens`
    appends; a token such as GPT-2's `<|endoftext|>` inside the vocabulary stays text, as in RoBERTa's)."""
    made = set(bytes_to_unicode()) | {merge.replace(" ", "") for merge in merges}
    last = max(special)
    return sorted(set(special) | {i for i, token in enumerate(tokens) if i > last and token not in made})


def special_ids(tokens, source, names=None):
    """`{"cls": id, "sep": id, ...}` of the special tokens: `names`, else RoBERTa's (`BPE_SPECIALS`)
    if the vocabulary has `<s>`, else BERT's names (ModernBERT)."""
    index = {token: i for i, token in enumerate(tokens)}
    names = dict(names or (BPE_SPECIALS if "<s>" in index or "[CLS]" not in index else BERT_NAMED_SPECIALS))
    missing = [token for token in names.values() if token not in index]
    if missing:
        raise ValueError(f"{source} lacks the special token(s) {missing}; a RoBERTa-style BPE "
                         f"vocabulary needs {sorted(names.values())}.")
    return {key: index[token] for key, token in names.items()}
