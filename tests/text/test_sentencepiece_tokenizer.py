"""SentencepieceTokenizer: XLM-R's fairseq ids and offsets against transformers' XLMRobertaTokenizer."""

import pytest
import tensorflow as tf

from keras_bert.text.sentencepiece_tokenizer import SentencepieceTokenizer

# Hard lines where transformers 5's Rust XLM-R tokenizer and the sentencepiece library disagree (ties
# between equal-score segmentations of long repeated words; U+0085, ｶﾞ, stacked combining marks).
KNOWN_DIFFERENT = (5, 8, 9, 10, 15, 21)


@pytest.fixture(scope="module")
def lines(shakespeare_lines):
    return shakespeare_lines[:400]


@pytest.fixture(scope="module")
def trained(trained_sentencepiece):
    return trained_sentencepiece


@pytest.fixture(scope="module")
def tokenizer(trained):
    return SentencepieceTokenizer(trained[0] / "sentencepiece.bpe.model")


def test_fairseq_ids_and_offsets_equal_transformers(tokenizer, trained, hard_cases, lines):
    reference = trained[1]
    assert (tokenizer.vocab_size, tokenizer.mask_id) == (len(reference), reference.mask_token_id)
    texts = hard_cases + lines
    ids, starts, ends = tokenizer.tokenize_with_offsets(texts)
    assert ids.to_list() == tokenizer.tokenize_words(texts).to_list()
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in (ids, starts, ends))
    expected = reference(texts, add_special_tokens=False, return_offsets_mapping=True)
    different = [i for i, text in enumerate(texts) if ids[i] != expected["input_ids"][i]]
    assert different == list(KNOWN_DIFFERENT)
    for i, text in enumerate(texts):
        if i not in KNOWN_DIFFERENT:
            assert list(zip(starts[i], ends[i])) == [tuple(o) for o in expected["offset_mapping"][i]], text


def test_specials_detokenize_and_graph(tokenizer):
    assert (tokenizer.cls_id, tokenizer.pad_id, tokenizer.sep_id, tokenizer.unk_id) == (0, 1, 2, 3)
    assert tokenizer.id_to_token(tokenizer.mask_id) == "<mask>" and tokenizer.token_to_id("<unk>") == 3
    ids = tokenizer.tokenize(["Hello  world", "To be, or not"])
    assert tokenizer.detokenize(ids).numpy().tolist() == [b"Hello world", b"To be, or not"]
    graph = tf.function(tokenizer.tokenize, input_signature=[tf.TensorSpec([None], tf.string)])
    assert graph(tf.constant(["To be, or not"])).to_list() == ids[1:].to_list()


def test_a_file_that_is_no_model_is_named(tmp_path):
    (tmp_path / "sentencepiece.bpe.model").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="sentencepiece.bpe.model is not a SentencePiece model"):
        SentencepieceTokenizer(tmp_path / "sentencepiece.bpe.model")


def test_a_lone_space_piece_starts_the_word_it_precedes(tokenizer):
    """docs/serving.md's `entities` word rule for SentencePiece: `▁` alone (before a piece with no `▁` form)
    starts the word it precedes, as `word_ids()` groups it when such a model is trained; transformers'
    token-classification pipeline makes it a word of its own (its fallback heuristic), which this departs from."""
    words = tokenizer.tokenize_words(["«Paris» x"]).to_list()[0]
    pieces = [[tokenizer.id_to_token(i) for i in word] for word in words]
    assert [word[0] for word in pieces] == ["\u2581", "\u2581"] and len(pieces) == 2
    assert "".join(pieces[0][1:]) == "«Paris»"


def test_a_literal_special_token_is_its_id_as_in_transformers(tokenizer, trained, lines):
    """Issue 44: `<mask>` in XLM-R text was segmented as text; transformers reads it (and <s> </s> <pad> <unk>)
    as the special token, `<mask>` taking the whitespace before it, the text between segmented on its own;
    in `tokenize` and in `tokenize_with_offsets` alike."""
    texts = ["the <mask> is", "the<mask>is", "a <s> b", "a</s>b", "x <pad> <unk>y", "  <mask>  x", "a\u3000<mask>",
             "<mask><mask> </s>", "<mas k> <s", "a\x00<mask>b\x00c", "a\x01<mask>"]
    texts += [f"{line} <mask>." for line in lines[:20]]
    graph = tf.function(tokenizer.tokenize, input_signature=[tf.TensorSpec([None], tf.string)])
    expected = trained[1](texts, add_special_tokens=False, return_offsets_mapping=True)
    assert graph(tf.constant(texts)).to_list() == expected["input_ids"]
    # tokenize_with_offsets reads them by the same rule (entities), each spanning its literal's characters.
    ids, starts, ends = (t.merge_dims(1, 2).to_list() for t in tokenizer.tokenize_with_offsets(texts))
    assert ids == expected["input_ids"]
    spans = [list(zip(*row)) for row in zip(starts, ends)]
    # "a\x01<mask>": the piece before a dropped control character spans it (0, 2), as on text without specials.
    assert [i for i, row in enumerate(spans) if row != [tuple(o) for o in expected["offset_mapping"][i]]] == [10]
