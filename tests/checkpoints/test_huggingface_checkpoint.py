"""Hugging Face folders: prefixes, old LayerNorm names, bf16, shards, missing parts, name mapping."""

import json
import os
import shutil

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from keras_bert.checkpoints import load_checkpoint
from keras_bert.checkpoints.huggingface_checkpoint import google_name, huggingface_name
from keras_bert.checkpoints.weight_map import model_variables, model_weights
from keras_bert.models import build_pretrainer

from .conftest import TINY


def rewrite(source, target, transform):
    """Copies an HF folder, passing its tensors through `transform(dict) -> dict`."""
    shutil.copytree(source, target)
    tensors = transform(load_file(os.path.join(source, "model.safetensors")))
    os.remove(target / "model.safetensors")
    return tensors


def assert_same_weights(a, b):
    a, b = model_weights(a), model_weights(b)
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_name_mapping_is_one_to_one_and_invertible():
    from keras_bert.config import BertConfig

    config = BertConfig(vocab_size=10, hidden_size=8, num_layers=2, num_heads=2, intermediate_size=16)
    names = [name for name, _, _ in model_variables(build_pretrainer(config))]
    hf_names = [huggingface_name(name)[0] for name in names]
    assert len(set(hf_names)) == len(names)
    assert "bert.encoder.layer.1.attention.self.query.weight" in hf_names
    assert "cls.predictions.bias" in hf_names
    for name, hf in zip(names, hf_names):
        assert google_name(hf) == (name, huggingface_name(name)[1])
    assert google_name("encoder.layer.0.output.LayerNorm.gamma") == ("bert/encoder/layer_0/output/LayerNorm/gamma", False)
    assert google_name("bert.pooler.dense.weight") == ("bert/pooler/dense/kernel", True)


def test_with_and_without_bert_prefix(hf_model_dir, tmp_path):
    """BertModel saves no prefix; BertForPreTraining saves `bert.`: both load the same weights."""
    tensors = rewrite(hf_model_dir, tmp_path / "prefixed", lambda t: {"bert." + k: v for k, v in t.items()})
    save_file(tensors, tmp_path / "prefixed" / "model.safetensors")
    assert_same_weights(load_checkpoint(hf_model_dir), load_checkpoint(tmp_path / "prefixed"))


def test_old_gamma_beta_layer_norm_names(hf_model_dir, tmp_path):
    def rename(tensors):
        return {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
                for k, v in tensors.items()}

    save_file(rewrite(hf_model_dir, tmp_path / "old", rename), tmp_path / "old" / "model.safetensors")
    assert_same_weights(load_checkpoint(hf_model_dir), load_checkpoint(tmp_path / "old"))


def test_bfloat16_weights_load_as_float32(hf_model_dir, tmp_path):
    torch = pytest.importorskip("torch")
    import safetensors.torch

    shutil.copytree(hf_model_dir, tmp_path / "bf16")
    tensors = safetensors.torch.load_file(os.path.join(hf_model_dir, "model.safetensors"))
    safetensors.torch.save_file({k: v.to(torch.bfloat16) for k, v in tensors.items()},
                                tmp_path / "bf16" / "model.safetensors")
    encoder = load_checkpoint(tmp_path / "bf16")
    expected = tensors["embeddings.word_embeddings.weight"].to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(encoder.embeddings.embedding_table.numpy(), expected)


def test_sharded_checkpoint(hf_model_dir, tmp_path):
    tensors = rewrite(hf_model_dir, tmp_path / "sharded", lambda t: t)
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": names[::2], "model-00002-of-00002.safetensors": names[1::2]}
    for shard, keys in shards.items():
        save_file({k: tensors[k] for k in keys}, tmp_path / "sharded" / shard)
    index = {"metadata": {}, "weight_map": {k: s for s, keys in shards.items() for k in keys}}
    (tmp_path / "sharded" / "model.safetensors.index.json").write_text(json.dumps(index))
    assert_same_weights(load_checkpoint(hf_model_dir), load_checkpoint(tmp_path / "sharded"))


def test_masked_lm_checkpoint_without_pooler_and_nsp(hf_pretraining_dir, tmp_path):
    """BertForMaskedLM saves no pooler and no NSP head: both stay fresh, with warnings."""
    tensors = rewrite(hf_pretraining_dir, tmp_path / "mlm",
                      lambda t: {k: v for k, v in t.items() if "pooler" not in k and "seq_relationship" not in k})
    save_file(tensors, tmp_path / "mlm" / "model.safetensors")
    with pytest.warns(UserWarning) as record:
        pretrainer = load_checkpoint(tmp_path / "mlm", model="pretrainer")
    messages = " ".join(str(w.message) for w in record)
    assert "no pooler weights" in messages and "no next-sentence head" in messages
    full = load_checkpoint(hf_pretraining_dir, model="pretrainer")
    np.testing.assert_array_equal(pretrainer.get_layer("mlm_head").output_bias.numpy(),
                                  full.get_layer("mlm_head").output_bias.numpy())


def test_task_checkpoint_warns_about_ignored_variables(hf_model_dir, tmp_path):
    def add_classifier(tensors):
        return dict(tensors, **{"classifier.weight": np.ones((3, TINY["hidden_size"]), "float32"),
                                "classifier.bias": np.zeros(3, "float32")})

    save_file(rewrite(hf_model_dir, tmp_path / "task", add_classifier), tmp_path / "task" / "model.safetensors")
    with pytest.warns(UserWarning, match=r"ignored 2 variable\(s\).*classifier"):
        load_checkpoint(tmp_path / "task")


def test_partial_head_is_an_error(hf_pretraining_dir, tmp_path):
    tensors = rewrite(hf_pretraining_dir, tmp_path / "partial",
                      lambda t: {k: v for k, v in t.items() if k != "cls.predictions.transform.dense.bias"})
    save_file(tensors, tmp_path / "partial" / "model.safetensors")
    with pytest.raises(ValueError, match=r"part of the masked-LM head.*cls.predictions.transform.dense.bias"):
        load_checkpoint(tmp_path / "partial", model="pretrainer")


def test_tied_decoder_copy_is_accepted_and_untied_one_warns(hf_pretraining_dir, tmp_path):
    import warnings

    def with_decoder(scale):
        def transform(tensors):
            table = tensors["bert.embeddings.word_embeddings.weight"]
            return dict(tensors, **{"cls.predictions.decoder.weight": table * scale,
                                    "bert.embeddings.position_ids": np.arange(32, dtype="int64")[None]})
        return transform

    tensors = rewrite(hf_pretraining_dir, tmp_path / "tied", with_decoder(1.0))
    save_file(tensors, tmp_path / "tied" / "model.safetensors")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_checkpoint(tmp_path / "tied", model="pretrainer")
    tensors = rewrite(hf_pretraining_dir, tmp_path / "untied", with_decoder(2.0))
    save_file(tensors, tmp_path / "untied" / "model.safetensors")
    with pytest.warns(UserWarning, match="untied decoder is ignored"):
        load_checkpoint(tmp_path / "untied", model="pretrainer")
