"""What a pretraining run prints at its end: the curves' first and last values beside a unigram
guess, and the fill-in-the-mask demo's answers."""


def pretraining_summary(rows, baseline, tokenizer):
    """One sentence: train loss and MLM (and NSP) accuracy, first epoch -> last, and held out.

    Args:
        rows: the run's `TrainingLog` rows (`kind` "epoch_end" and "validation").
        baseline: `unigram_mlm_accuracy`'s `(accuracy, token id)` on the held-out batches, or None.
        tokenizer: names the unigram guess's token.

    Example:
        >>> pretraining_summary(result["rows"], None, tokenizer)  # doctest: +SKIP
        'Train loss 7.10 -> 4.20, MLM accuracy 0.050 -> 0.210.'
    """
    epochs = [r for r in rows if r.get("kind") == "epoch_end"]
    held_out = [r for r in rows if r.get("kind") == "validation"]
    if not epochs:
        return ""
    first, last = epochs[0], epochs[-1]
    nsp = "nsp_accuracy" in last  # absent: trained without next-sentence pairs (MLM only)
    text = (f"Train loss {first['loss']:.2f} -> {last['loss']:.2f}, MLM accuracy "
            f"{first['mlm_accuracy']:.3f} -> {last['mlm_accuracy']:.3f}")
    if nsp:
        text += f", NSP accuracy {first['nsp_accuracy']:.3f} -> {last['nsp_accuracy']:.3f}"
    if held_out:
        text += (f"; held-out MLM accuracy {held_out[0]['mlm_accuracy']:.3f} -> "
                 f"{held_out[-1]['mlm_accuracy']:.3f}")
        if baseline and baseline[1] is not None:
            text += (f" (a unigram guess, always {tokenizer.id_to_token(baseline[1])!r}, "
                     f"gets {baseline[0]:.3f})")
        if nsp:
            text += f", NSP accuracy {held_out[-1]['nsp_accuracy']:.3f}"
    return text + "."


def fill_mask_lines(demo, answers):
    """Lines showing each demo sentence, its top guesses and how many top-1s are words.

    Args:
        demo: `(sentence with [MASK], the masked word)` pairs.
        answers: `fill_mask`'s answers for the sentences: per sentence, per mask, `(token, p)` pairs.
    """
    lines, words, hits = [], 0, 0
    for (sentence, answer), masks in zip(demo, answers):
        guesses = ", ".join(f"{token} ({p:.2f})" for token, p in masks[0])
        lines.append(f"  {sentence}   [{answer}]\n      -> {guesses}")
        words += masks[0][0][0].isalpha()
        hits += answer.lower() in {token.lower() for token, _ in masks[0]}
    lines.append(f"  Top-1 is a word for {words}/{len(demo)} sentences; the masked word is in the top 5 "
                 f"for {hits}/{len(demo)}.")
    return lines
