"""Seeded tiny Hugging Face DeBERTa-v3 folders (real `save_pretrained` output) and padded batches."""

import numpy as np

from tests.models.seeded_pretrained import save_seeded_pretrained

# DeBERTa-v3's settings at tiny sizes: relative attention in 16 log buckets over distances up to 64 (so
# lengths 64 and 512 reach the buckets and the clipping), shared keys, c2p + p2c, no token types, no
# absolute positions.
TINY_HF = dict(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
               max_position_embeddings=512, relative_attention=True, position_buckets=16, max_relative_positions=64,
               pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm", share_att_key=True,
               position_biased_input=False, type_vocab_size=0, layer_norm_eps=1e-7, pad_token_id=0,
               hidden_act="gelu", pooler_hidden_act="gelu")
# DeBERTa-v2's other settings: exact relative positions (no buckets), own position projections, token types,
# absolute positions, no LayerNorm on the relative table.
V2_HF = dict(TINY_HF, position_buckets=-1, max_relative_positions=32, share_att_key=False, norm_rel_ebd="none",
             position_biased_input=True, type_vocab_size=2)


def save_seeded(folder, architecture="DebertaV2ForMaskedLM", seed=0, **overrides):
    """`folder` holding a seeded `transformers.<architecture>` of TINY_HF (+ overrides): `save_seeded_pretrained`."""
    return save_seeded_pretrained(folder, "DebertaV2Config", architecture, seed, **dict(TINY_HF, **overrides))


def hf_model(folder, architecture):
    """`transformers.<architecture>` of `folder`, in eval mode."""
    import transformers

    return getattr(transformers, architecture).from_pretrained(folder).eval()


def hf_outputs(model, batch):
    """A transformers DeBERTa's outputs for a keras_bert batch (multiple choice: `[examples, choices, seq]`),
    numpy by name (`last_hidden_state`, `logits`, `start_logits`, ...)."""
    import torch

    with torch.no_grad():
        out = model(input_ids=torch.tensor(batch["input_word_ids"], dtype=torch.long),
                    attention_mask=torch.tensor(batch["input_mask"], dtype=torch.long),
                    token_type_ids=torch.tensor(batch["input_type_ids"], dtype=torch.long))
    return {name: value.numpy() for name, value in out.items() if isinstance(value, torch.Tensor)}


def padded_batch(seq, lengths, seed=0, vocab_size=100, type_vocab_size=0):
    """Right-padded int32 encoder inputs: one row per length."""
    rng = np.random.default_rng(seed)
    mask = np.array([[1] * n + [0] * (seq - n) for n in lengths], "int32")
    ids = rng.integers(3, vocab_size, (len(lengths), seq)).astype("int32") * mask
    types = rng.integers(0, max(type_vocab_size, 1), (len(lengths), seq)).astype("int32") * mask
    return {"input_word_ids": ids, "input_mask": mask, "input_type_ids": types}


def save_tokenizer(folder, lines):
    """Trains a tiny DeBERTa-v3 style SentencePiece unigram model on `lines` ([PAD]=0, [CLS]=1, [SEP]=2,
    [UNK]=3, 300 pieces) and saves it as transformers does (`DebertaV2Tokenizer`, converted from the spm.model:
    tokenizer.json + tokenizer_config.json, [MASK] added as id 300); returns the tokenizer."""
    import json
    import os
    import tempfile

    import sentencepiece
    import transformers

    with tempfile.TemporaryDirectory() as source:
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_prefix=os.path.join(source, "spm"), vocab_size=300,
            model_type="unigram", pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]", bos_piece="[CLS]",
            eos_piece="[SEP]", unk_piece="[UNK]", minloglevel=2)
        with open(os.path.join(source, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"tokenizer_class": "DebertaV2Tokenizer", "model_max_length": 512}, f)
        tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    tokenizer.save_pretrained(folder)
    return tokenizer
