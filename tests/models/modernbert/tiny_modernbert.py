"""Seeded tiny Hugging Face ModernBERT folders (real `save_pretrained` output) and padded batches."""

import numpy as np

from tests.models.seeded_pretrained import save_seeded_pretrained

# 3 layers: global, local, local; local_attention 16 (a token sees +-8), so the window bites at 16+.
TINY_HF = dict(vocab_size=100, hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
               local_attention=16, pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
               sep_token_id=2)


def save_seeded(folder, architecture="ModernBertForMaskedLM", seed=0, **overrides):
    """`folder` holding a seeded `transformers.<architecture>` of TINY_HF (+ overrides): `save_seeded_pretrained`."""
    return save_seeded_pretrained(folder, "ModernBertConfig", architecture, seed, **dict(TINY_HF, **overrides))


def hf_outputs(folder, architecture, batch, attn_implementation="eager"):
    """The Hugging Face model's output for a keras_bert batch: `last_hidden_state` or `logits`, numpy."""
    import torch
    import transformers

    model = getattr(transformers, architecture).from_pretrained(folder, attn_implementation=attn_implementation)
    with torch.no_grad():
        out = model.eval()(input_ids=torch.tensor(batch["input_word_ids"], dtype=torch.long),
                           attention_mask=torch.tensor(batch["input_mask"], dtype=torch.long))
    return (out.logits if hasattr(out, "logits") else out.last_hidden_state).numpy()


def padded_batch(seq, lengths, seed=0, vocab_size=100):
    """Right-padded int32 encoder inputs: one row per length (`input_type_ids` random, to be ignored)."""
    rng = np.random.default_rng(seed)
    mask = np.array([[1] * n + [0] * (seq - n) for n in lengths], "int32")
    ids = rng.integers(3, vocab_size, (len(lengths), seq)).astype("int32") * mask
    return {"input_word_ids": ids, "input_mask": mask,
            "input_type_ids": rng.integers(0, 2, (len(lengths), seq)).astype("int32")}
