"""models/modernbert/modernbert_family.py: ModernBERT's record: its own config, 30 % masking, its masked-LM head."""

from keras_bert.models.modernbert import MODERNBERT, ModernBertConfig, ModernBertEncoder

from tests.models.modernbert.tiny_modernbert import TINY_HF

TINY = ModernBertConfig.from_huggingface_dict(TINY_HF)


def test_the_record_builds_modernberts_masked_lm_head_on_its_encoder():
    encoder = ModernBertEncoder(TINY)
    head = MODERNBERT.build_masked_lm_head(TINY, encoder)
    assert (MODERNBERT.mask_rate, MODERNBERT.next_sentence, MODERNBERT.tokenizer) == (0.3, False, "byte_bpe")
    assert type(head).__name__ == "ModernBertMaskedLMHead" and MODERNBERT.encoder_class is ModernBertEncoder
