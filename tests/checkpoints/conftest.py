"""Tiny random Hugging Face BERT checkpoints (made with transformers) for round trips and errors."""

import os

import pytest

VOCAB_SIZE = 64
TINY = dict(vocab_size=VOCAB_SIZE, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=32, max_position_embeddings=32, type_vocab_size=2, hidden_act="gelu")


def write_vocab(directory, size=VOCAB_SIZE):
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += [f"tok{i}" for i in range(size - len(tokens))]
    path = os.path.join(directory, "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    return path


def randomize(model, seed=0):
    """Random values in every parameter: zeros/ones (LayerNorm, biases) would hide mix-ups."""
    import torch

    torch.manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.3)
    return model.eval()


def save_hf(model, directory):
    """A folder as Hugging Face writes it: weights, config.json and the tokenizer's own files."""
    import transformers

    model.save_pretrained(directory)
    transformers.BertTokenizerFast(vocab=write_vocab(directory)).save_pretrained(directory)
    return str(directory)


@pytest.fixture(scope="session")
def hf_pretraining_dir(tmp_path_factory):
    """A random 2-layer BertForPreTraining (MLM + NSP heads), `bert.`-prefixed names, vocab.txt."""
    transformers = pytest.importorskip("transformers")
    model = randomize(transformers.BertForPreTraining(transformers.BertConfig(**TINY)))
    return save_hf(model, tmp_path_factory.mktemp("hf_pretraining"))


@pytest.fixture(scope="session")
def hf_model_dir(tmp_path_factory):
    """A random 2-layer BertModel: no `bert.` prefix, no heads."""
    transformers = pytest.importorskip("transformers")
    model = randomize(transformers.BertModel(transformers.BertConfig(**TINY)), seed=1)
    return save_hf(model, tmp_path_factory.mktemp("hf_model"))
