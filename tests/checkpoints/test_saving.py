"""Round trips: HF -> Keras -> Google TF1 -> Keras -> HF with bitwise-identical weights."""

import os
import warnings

import numpy as np
import pytest
import tensorflow as tf
from safetensors.numpy import load_file

from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.models import build_classifier

from .conftest import TINY, VOCAB_SIZE


def assert_bitwise_equal(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        assert a[name].shape == b[name].shape, name
        assert np.array_equal(a[name], b[name]), f"{name} differs"


def test_hf_keras_google_keras_hf_is_bitwise_identical(hf_pretraining_dir, tmp_path):
    original = load_file(os.path.join(hf_pretraining_dir, "model.safetensors"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complete checkpoint loads without any warning
        first = load_checkpoint(hf_pretraining_dir, model="pretrainer")
    save_checkpoint(first, tmp_path / "google", format="google")
    second = load_checkpoint(tmp_path / "google", model="pretrainer")
    assert_bitwise_equal(model_weights(first), model_weights(second))
    save_checkpoint(second, tmp_path / "keras", format="keras")
    third = load_checkpoint(tmp_path / "keras", model="pretrainer")
    assert_bitwise_equal(model_weights(first), model_weights(third))
    save_checkpoint(third, tmp_path / "hf", format="huggingface")
    final = load_file(tmp_path / "hf" / "model.safetensors")
    assert_bitwise_equal(original, final)
    for directory in ("google", "keras", "hf"):  # vocab.txt travels along
        with open(tmp_path / directory / "vocab.txt") as f:
            assert len(f.read().split()) == VOCAB_SIZE


def test_google_checkpoint_has_google_names_and_layouts(hf_pretraining_dir, tmp_path):
    save_checkpoint(load_checkpoint(hf_pretraining_dir, model="pretrainer"), tmp_path, format="google")
    assert {"bert_config.json", "bert_model.ckpt.index", "bert_model.ckpt.data-00000-of-00001",
            "vocab.txt"} <= set(os.listdir(tmp_path))
    shapes = tf.train.load_checkpoint(str(tmp_path / "bert_model.ckpt")).get_variable_to_shape_map()
    hidden, inner, layer = TINY["hidden_size"], TINY["intermediate_size"], "bert/encoder/layer_1/"
    expected = {
        "bert/embeddings/word_embeddings": [VOCAB_SIZE, hidden],
        "bert/embeddings/token_type_embeddings": [2, hidden],
        "bert/embeddings/position_embeddings": [TINY["max_position_embeddings"], hidden],
        "bert/embeddings/LayerNorm/gamma": [hidden],
        layer + "attention/self/query/kernel": [hidden, hidden],
        layer + "attention/output/dense/bias": [hidden],
        layer + "attention/output/LayerNorm/beta": [hidden],
        layer + "intermediate/dense/kernel": [hidden, inner],
        layer + "output/dense/kernel": [inner, hidden],
        layer + "output/LayerNorm/gamma": [hidden],
        "bert/pooler/dense/kernel": [hidden, hidden],
        "cls/predictions/transform/dense/kernel": [hidden, hidden],
        "cls/predictions/transform/LayerNorm/beta": [hidden],
        "cls/predictions/output_bias": [VOCAB_SIZE],
        "cls/seq_relationship/output_weights": [2, hidden],
        "cls/seq_relationship/output_bias": [2],
    }
    assert {name: shapes.get(name) for name in expected} == expected
    assert len(shapes) == 5 + 2 * 16 + 2 + 7  # embeddings, 2 layers, pooler, heads
    # The directory itself resolves too (we also write the `checkpoint` state file).
    assert tf.train.load_checkpoint(str(tmp_path)).has_tensor("bert/pooler/dense/bias")


def test_hf_output_loads_in_transformers_and_heads_match(hf_pretraining_dir, tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    pretrainer = load_checkpoint(hf_pretraining_dir, model="pretrainer")
    save_checkpoint(pretrainer, tmp_path, format="huggingface")
    reference, info = transformers.BertForPreTraining.from_pretrained(tmp_path, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"], info
    _, info = transformers.BertModel.from_pretrained(tmp_path, output_loading_info=True)
    assert not info["missing_keys"], info
    # Independent check of the MLM/NSP heads and the tied embeddings against BertForPreTraining.
    rng = np.random.default_rng(0)
    ids = rng.integers(5, VOCAB_SIZE, size=(3, 12)).astype("int32")
    mask = np.ones_like(ids)
    mask[1, 8:] = 0
    mask[2, 5:] = 0
    types = np.zeros_like(ids)
    types[:, 6:] = 1
    positions = np.array([[1, 3, 7], [2, 4, 0], [1, 2, 3]], "int32")
    ours = pretrainer({"input_word_ids": ids, "input_mask": mask, "input_type_ids": types,
                       "masked_lm_positions": positions}, training=False)
    with torch.no_grad():
        theirs = reference.eval()(input_ids=torch.from_numpy(ids).long(),
                                  attention_mask=torch.from_numpy(mask).long(),
                                  token_type_ids=torch.from_numpy(types).long())
    expected_mlm = np.take_along_axis(theirs.prediction_logits.numpy(), positions[:, :, None], axis=1)
    mlm_diff = np.max(np.abs(np.asarray(ours["mlm_logits"]) - expected_mlm))
    nsp_diff = np.max(np.abs(np.asarray(ours["nsp_logits"]) - theirs.seq_relationship_logits.numpy()))
    print(f"max |mlm_logits diff| = {mlm_diff:.2e}, max |nsp_logits diff| = {nsp_diff:.2e}")
    assert mlm_diff <= 1e-4 and nsp_diff <= 1e-4


def test_encoder_only_save_has_no_heads(hf_model_dir, tmp_path):
    encoder = load_checkpoint(hf_model_dir)
    save_checkpoint(encoder, tmp_path, format="hf")
    names = load_file(tmp_path / "model.safetensors")
    assert all(name.startswith("bert.") for name in names)
    assert len(names) == 5 + 2 * 16 + 2


def test_task_model_writes_its_encoder_and_warns(hf_model_dir, tmp_path):
    classifier = build_classifier(load_checkpoint(hf_model_dir), num_classes=3)
    with pytest.warns(UserWarning, match=r"only its BERT encoder.*classifier.*dropped"):
        save_checkpoint(classifier, tmp_path, format="google")
    assert_bitwise_equal(model_weights(load_checkpoint(tmp_path)), model_weights(load_checkpoint(hf_model_dir)))


def test_pretrainer_from_encoder_only_checkpoint_warns_and_keeps_fresh_heads(hf_model_dir):
    with pytest.warns(UserWarning, match="no pretraining heads"):
        pretrainer = load_checkpoint(hf_model_dir, model="pretrainer")
    assert_bitwise_equal(model_weights(pretrainer.encoder), model_weights(load_checkpoint(hf_model_dir)))


def test_save_vocab_mismatch_and_unknown_format(hf_model_dir, tmp_path):
    encoder = load_checkpoint(hf_model_dir)
    with pytest.raises(ValueError, match="Unknown checkpoint format 'onnx'"):
        save_checkpoint(encoder, tmp_path, format="onnx")
    short_vocab = tmp_path / "short_vocab.txt"
    short_vocab.write_text("\n".join(f"t{i}" for i in range(10)) + "\n")
    with pytest.raises(ValueError, match="vocab.txt has 10 lines but the checkpoint's word_embeddings has 64 rows"):
        save_checkpoint(encoder, tmp_path / "out", format="google", vocab_file=str(short_vocab))


def test_the_text_contract_travels_through_every_format(hf_model_dir, tmp_path):
    encoder = load_checkpoint(hf_model_dir)
    assert encoder.text_config.source.endswith("tokenizer_config.json") and encoder.text_config.lower_case
    cased = encoder.text_config.replace(lower_case=False, max_seq_length=24)
    files = {"google": "text_config.json", "keras": "text_config.json", "huggingface": "tokenizer_config.json"}
    for fmt, name in files.items():
        save_checkpoint(encoder, tmp_path / fmt, format=fmt, text_config=cased)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # read, not guessed
            loaded = load_checkpoint(tmp_path / fmt).text_config
        assert loaded == cased.replace(vocab_file=str(tmp_path / fmt / "vocab.txt")), fmt
        assert (tmp_path / fmt / name).exists(), fmt
    # A .keras file carries the contract inside, vocab.txt included: nothing is written beside it.
    save_checkpoint(encoder, tmp_path / "file" / "model.keras", format="keras", text_config=cased)
    assert os.listdir(tmp_path / "file") == ["model.keras"]
    loaded = load_checkpoint(tmp_path / "file" / "model.keras").text_config
    assert loaded.replace(vocab_file=cased.vocab_file) == cased
    assert open(loaded.vocab_file, "rb").read() == open(cased.vocab_file, "rb").read()
    assert encoder.text_config.lower_case  # the model's own contract is left as it was
    # Without a contract only vocab.txt is written, and both sides say so.
    encoder.text_config = None
    with pytest.warns(UserWarning, match="no text contract"):
        save_checkpoint(encoder, tmp_path / "bare", format="google", vocab_file=cased.vocab_file)
    with pytest.warns(UserWarning, match="guessing lower_case"):
        load_checkpoint(tmp_path / "bare")
