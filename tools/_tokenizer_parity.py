"""One-off: the tokenizer parity table (issue 29 §4) on the suite's hard-text lines and the whole corpus.

Trains a byte-level BPE (`tokenizers.ByteLevelBPETokenizer`, RoBERTa's settings) and a SentencePiece
unigram model (`sentencepiece`, read by transformers' `XLMRobertaTokenizer`) on every 50th corpus line,
then compares keras_bert's in-graph tokenizers with them line by line and prints
(tokenizer, lines, lines compared, ids equal, offsets equal); offsets are compared where ids are equal.
Also compares the SentencePiece ids with the `sentencepiece` library itself.

    python tools/_tokenizer_parity.py [--limit N]
"""

import argparse
import importlib.util
import os
import shutil
import tempfile

import sentencepiece
import tokenizers
import transformers
from tokenizers.processors import RobertaProcessing

from keras_bert.data import shakespeare_files
from keras_bert.text import ByteBpeTokenizer, SentencepieceTokenizer

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def hard_lines():
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "text", "conftest.py")
    spec = importlib.util.spec_from_file_location("text_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.HARD_CASES)


def corpus_lines(limit):
    lines = []
    for path in shakespeare_files():
        with open(path, encoding="utf-8") as f:
            lines += [line.rstrip("\n") for line in f if line.strip()]
    return lines[:limit] if limit else lines


def compare(ours, reference, texts, batch=2000):
    """(ids equal, offsets equal) counts; `reference(texts)` -> [(ids, offsets)]."""
    same_ids = same_offsets = 0
    for begin in range(0, len(texts), batch):
        chunk = texts[begin:begin + batch]
        ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in ours.tokenize_with_offsets(chunk))
        for i, (ref_ids, ref_offsets) in enumerate(reference(chunk)):
            if ids[i] == ref_ids:
                same_ids += 1
                same_offsets += list(zip(starts[i], ends[i])) == [tuple(o) for o in ref_offsets]
    return same_ids, same_offsets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="compare only the first N corpus lines")
    args = parser.parse_args()
    hard, corpus = hard_lines(), corpus_lines(args.limit)
    train = corpus[::50] + hard
    folder = tempfile.mkdtemp()
    try:
        bpe = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
        bpe.train_from_iterator(train, vocab_size=1000, min_frequency=2, special_tokens=SPECIALS,
                                show_progress=False)
        bpe.post_processor = RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True,
                                               add_prefix_space=False)
        bpe.save_model(folder)
        ours_bpe = ByteBpeTokenizer(os.path.join(folder, "vocab.json"), os.path.join(folder, "merges.txt"))
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(train), model_prefix=os.path.join(folder, "sp"), vocab_size=1000,
            model_type="unigram", character_coverage=1.0, hard_vocab_limit=False, minloglevel=2)
        shutil.copyfile(os.path.join(folder, "sp.model"), os.path.join(folder, "sentencepiece.bpe.model"))
        xlmr = transformers.XLMRobertaTokenizer.from_pretrained(folder)
        library = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "sp.model"))
        ours_sp = SentencepieceTokenizer(os.path.join(folder, "sentencepiece.bpe.model"))

        def hf_bpe(texts):
            return [(e.ids[1:-1], e.offsets[1:-1]) for e in bpe.encode_batch(texts)]

        def hf_xlmr(texts):
            out = xlmr(texts, add_special_tokens=False, return_offsets_mapping=True)
            return list(zip(out["input_ids"], out["offset_mapping"]))

        def spm_library(texts):
            return [([i + 1 if i else 3 for i in ids], []) for ids in library.encode(texts)]

        print(f"{'tokenizer':<44} {'lines':<10} {'compared':>8} {'ids equal':>10} {'offsets equal':>14}")
        for name, ours, reference in (("byte_bpe vs tokenizers ByteLevelBPE", ours_bpe, hf_bpe),
                                      ("sentencepiece vs transformers XLMRoberta", ours_sp, hf_xlmr),
                                      ("sentencepiece ids vs sentencepiece lib", ours_sp, spm_library)):
            for label, texts in (("hard", hard), ("corpus", corpus)):
                ids, offsets = compare(ours, reference, texts)
                offsets = "-" if reference is spm_library else offsets
                print(f"{name:<44} {label:<10} {len(texts):>8} {ids:>10} {offsets:>14}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
