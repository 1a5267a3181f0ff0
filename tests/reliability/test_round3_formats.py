"""Round three of bad input on the text, checkpoint and export side (issue 30): each row was silently wrong
or unclear before; now it is equal to the reference or refused in one line naming the file, field or flag."""

import json
import os
import warnings

import numpy as np
import pytest

import keras_bert
from keras_bert.models.builders import build_embedder
from tests.reliability.conftest import assert_api_error, real_vocab_file

BATCH = {"input_word_ids": np.array([[2, 50, 60, 70, 3, 0]], "int32"),
         "input_mask": np.array([[1, 1, 1, 1, 1, 0]], "int32"), "input_type_ids": np.zeros((1, 6), "int32")}


@pytest.fixture(scope="module")
def spaced_vocab_dir(tmp_path_factory):
    """The real uncased vocab with [unused5] renamed `new york` (a token holding a space)."""
    with open(real_vocab_file(), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:-1]
    vocab[vocab.index("[unused5]")] = "new york"
    folder = tmp_path_factory.mktemp("spaced_vocab")
    (folder / "vocab.txt").write_text("".join(t + "\n" for t in vocab), encoding="utf-8")
    return folder


@pytest.mark.parametrize("normalization", ["reference", "fast"])
def test_a_vocab_token_with_a_space_tokenizes_as_the_reference(spaced_vocab_dir, normalization):
    """Before: `new york` matched as one token (id 6) across the space. After: the reference's ids."""
    from transformers import BertTokenizerFast

    reference = BertTokenizerFast.from_pretrained(str(spaced_vocab_dir))
    tokenizer = keras_bert.Tokenizer(spaced_vocab_dir / "vocab.txt", normalization=normalization)
    texts = ["new york is big", "I love new york!", "new\tyork", "new\u00a0york", "N\u00e9w York"]
    ours = tokenizer.tokenize(texts).to_list()
    assert ours == [reference(t, add_special_tokens=False)["input_ids"] for t in texts]
    assert 6 not in sum(ours, [])
    assert tokenizer.detokenize([2047, 6, 2259]).numpy().decode() == reference.decode([2047, 6, 2259])


def tiny_embedder(tiny_checkpoint):
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    embedder = build_embedder(encoder, pooling="cls", normalize=True, task_config={"seq_length": 32})
    embedder.text_config = encoder.text_config
    return embedder


def test_an_embedding_model_saved_as_huggingface_keeps_its_pooling(tiny_checkpoint, tmp_path):
    """Before: a bare BERT folder (loads as an encoder; model="embedding" pooled by mean, outputs differed).
    After: a Hugging Face folder that is also a sentence-transformers folder: the same embedder loads back."""
    embedder = tiny_embedder(tiny_checkpoint)
    keras_bert.save_checkpoint(embedder, tmp_path / "hf", format="huggingface")
    assert {"config.json", "model.safetensors", "modules.json"} <= set(os.listdir(tmp_path / "hf"))
    for model in (None, "embedding"):
        reloaded = keras_bert.load_checkpoint(tmp_path / "hf", model=model)
        assert reloaded.task == "embedding" and reloaded.task_config == embedder.task_config
        np.testing.assert_allclose(reloaded(BATCH), embedder(BATCH), atol=1e-6)


def test_an_embedding_model_saved_as_google_warns_that_its_pooling_is_dropped(tiny_checkpoint, tmp_path):
    """Before: no word. After: a warning naming the pooling and format='st'."""
    with pytest.warns(UserWarning, match=r"its pooling \(cls, normalize=True\) .* format='st'"):
        keras_bert.save_checkpoint(tiny_embedder(tiny_checkpoint), tmp_path / "g", format="google")


def test_a_bert_written_over_a_sentence_transformers_folder_loads_as_itself(tiny_checkpoint, tmp_path):
    """Before: modules.json and 1_Pooling stayed, so the new encoder loaded with the old folder's pooling
    as an embedder. After: they are removed with the other old checkpoint files."""
    keras_bert.save_checkpoint(tiny_embedder(tiny_checkpoint), tmp_path / "f", format="st")
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    keras_bert.save_checkpoint(encoder, tmp_path / "f", format="huggingface")
    assert "modules.json" not in os.listdir(tmp_path / "f")
    assert isinstance(keras_bert.load_checkpoint(tmp_path / "f"), keras_bert.BertEncoder)
