"""Where the TFLite text model's tokenizer (`normalization="fast"`) departs from BERT's reference
normalization: the measuring functions and the tool that publishes the numbers."""

import pytest
import tensorflow as tf

from keras_bert.text.fast_parity import describe_characters, differing_characters, differing_texts, fast_twin
from tests.conftest import run_tool

CHARACTERS = "tests/data/fixtures/fast_normalization_characters.txt"


def test_differing_texts_finds_the_documented_classes(tokenizer):
    plain = ["The quick brown fox.", "Shall I compare thee to a summer's day?", "", "naïve café déjà vu"]
    folded = ["Straße", "Brand™", "wait…", "ＯＭＧ", "ﬁne", "bell\x07ring"]
    assert differing_texts(tokenizer, plain + folded) == list(range(len(plain), len(plain) + len(folded)))
    twin = fast_twin(tokenizer)
    assert twin.normalization == "fast" and twin.vocab == tokenizer.vocab
    assert twin.tokenize(tf.constant(["wait…"])).to_list() != tokenizer.tokenize(tf.constant(["wait…"])).to_list()


def test_literal_special_tokens_are_text_on_both_sides(tokenizer):
    assert differing_texts(tokenizer, ["To be or not to [MASK]."]) == []


def test_differing_characters_on_chosen_code_points(tokenizer):
    points = [ord(c) for c in "aZé中,\u00df\u2122\u2026\uff21\ufb01\x07\u00bd"]
    assert differing_characters(tokenizer, points) == [ord(c) for c in "\u00df\u2122\u2026\uff21\ufb01\x07\u00bd"]


def test_tool_reports_rates_and_refuses_bad_flags(tmp_path):
    texts = tmp_path / "texts.txt"
    texts.write_text("plain words\nStraße und Brand™\n", encoding="utf-8")
    proc = run_tool("fast_normalization_report", "--corpus_every", "500", "--no_characters", "--texts", str(texts))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"{texts}: 1 of 2 texts differ (50.0000%)" in proc.stdout
    assert "shakespeare (every 500 line(s)): 0 of " in proc.stdout
    assert "ellipsis \u2026: " in proc.stdout and "curly quotes: 0 of " in proc.stdout
    bad = run_tool("fast_normalization_report", "--corpus_every", "0", "--no_characters")
    assert bad.returncode != 0 and "--corpus_every 0: must be 1 or more." in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.slow
def test_every_differing_code_point_is_the_published_list(tokenizer):
    """All assigned code points (~1 min): exactly the published list (tests/data/fixtures), so a
    tensorflow-text or vocabulary change that moves it shows here."""
    with open(CHARACTERS, encoding="utf-8") as f:
        published = [line.rstrip("\n") for line in f if not line.startswith("# ") or "ids differ" in line]
    published[0] = published[0][2:]  # the "# assigned code points ..." summary line
    assert describe_characters(differing_characters(tokenizer)) == published
