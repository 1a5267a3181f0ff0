"""Google TF1 checkpoints: Google's config semantics, optimizer slots, prefixes."""

import json

import numpy as np
import tensorflow as tf

from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.checkpoints.google_checkpoint import read_google_checkpoint
from keras_bert.checkpoints.weight_map import model_weights


def test_google_gelu_means_tanh_and_exact_gelu_survives(hf_model_dir, tmp_path):
    encoder = load_checkpoint(hf_model_dir)  # HF "gelu": exact erf
    save_checkpoint(encoder, tmp_path, format="google")
    config = json.loads((tmp_path / "bert_config.json").read_text())
    assert config["hidden_act"] == "gelu" and config["keras_bert_hidden_act"] == "gelu"
    assert load_checkpoint(tmp_path).config.hidden_act == "gelu"
    del config["keras_bert_hidden_act"]  # now exactly what Google released
    (tmp_path / "bert_config.json").write_text(json.dumps(config))
    assert load_checkpoint(tmp_path).config.hidden_act == "gelu_tanh"


def test_training_checkpoint_with_adam_slots(hf_model_dir, tmp_path):
    """run_pretraining.py checkpoints also hold adam_m/adam_v slots and global_step."""
    weights = model_weights(load_checkpoint(hf_model_dir))
    names = sorted(weights)
    slots = {name + suffix: np.full_like(weights[name], 7.0) for name in names[:3] for suffix in ("/adam_m", "/adam_v")}
    tensors = dict(weights, **slots)
    save_checkpoint(load_checkpoint(hf_model_dir), tmp_path, format="google")  # config + vocab
    tf.raw_ops.SaveV2(prefix=str(tmp_path / "model.ckpt-1000"), tensor_names=sorted(tensors) + ["global_step"],
                      shape_and_slices=[""] * (len(tensors) + 1),
                      tensors=[tensors[n] for n in sorted(tensors)] + [np.int64(1000)])
    for stale in tmp_path.glob("bert_model.ckpt*"):
        stale.unlink()
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-1000"\n')
    contents = read_google_checkpoint(str(tmp_path))
    assert sorted(contents.weights) == names
    encoder = load_checkpoint(tmp_path)
    for name, value in model_weights(encoder).items():
        np.testing.assert_array_equal(value, weights[name], err_msg=name)
