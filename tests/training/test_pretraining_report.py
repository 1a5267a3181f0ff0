"""What a pretraining run prints at its end, from its log rows."""

from keras_bert.training.pretraining_report import fill_mask_lines, pretraining_summary


class _Tokenizer:
    def id_to_token(self, token_id):
        return {7: ","}[token_id]


def test_summary_reports_first_and_last_epochs_held_out_and_the_unigram_guess():
    rows = [{"kind": "epoch_end", "loss": 7.1, "mlm_accuracy": 0.05},
            {"kind": "validation", "mlm_accuracy": 0.06},
            {"kind": "epoch_end", "loss": 4.2, "mlm_accuracy": 0.21},
            {"kind": "validation", "mlm_accuracy": 0.22}]
    text = pretraining_summary(rows, (0.051, 7), _Tokenizer())
    assert text == ("Train loss 7.10 -> 4.20, MLM accuracy 0.050 -> 0.210; held-out MLM accuracy 0.060 -> "
                    "0.220 (a unigram guess, always ',', gets 0.051).")
    assert "NSP" not in text and pretraining_summary([], None, _Tokenizer()) == ""


def test_fill_mask_lines_count_words_and_hits():
    demo = [("The king is [MASK] .", "dead"), ("A [MASK] , a horse .", "horse")]
    answers = [[[("dead", 0.4), ("gone", 0.1)]], [[(",", 0.3), ("horse", 0.2)]]]
    lines = fill_mask_lines(demo, answers)
    assert lines[0] == "  The king is [MASK] .   [dead]\n      -> dead (0.40), gone (0.10)"
    assert lines[-1] == "  Top-1 is a word for 1/2 sentences; the masked word is in the top 5 for 2/2."
