"""keras_bert's own format and .keras files: safe_mode=True, no custom_objects."""

import keras
import numpy as np
import pytest

from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.models import BertEncoder, BertPretrainer, build_classifier

from .test_saving import assert_bitwise_equal


def inputs(masked=False):
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 64, size=(2, 9)).astype("int32")
    mask = np.ones_like(ids)
    mask[1, 6:] = 0
    x = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)}
    if masked:
        x["masked_lm_positions"] = np.array([[1, 2], [3, 0]], "int32")
    return x


def assert_same_outputs(a, b, x):
    out_a, out_b = a(x, training=False), b(x, training=False)
    out_a = out_a if isinstance(out_a, dict) else {"logits": out_a}
    out_b = out_b if isinstance(out_b, dict) else {"logits": out_b}
    for key in ("sequence_output", "pooled_output", "mlm_logits", "nsp_logits", "logits"):
        if key in out_a:
            np.testing.assert_array_equal(np.asarray(out_a[key]), np.asarray(out_b[key]), err_msg=key)


@pytest.mark.parametrize("kind", ["encoder", "pretrainer", "classifier"])
def test_dot_keras_file_loads_with_safe_mode_and_no_custom_objects(hf_pretraining_dir, tmp_path, kind):
    model = load_checkpoint(hf_pretraining_dir, model="pretrainer" if kind == "pretrainer" else "encoder")
    if kind == "classifier":
        model = build_classifier(model, num_classes=3)
    path = save_checkpoint(model, tmp_path / f"{kind}.keras", format="keras")
    restored = keras.saving.load_model(path, safe_mode=True)
    assert type(restored) is type(model)
    assert len(restored.weights) == len(model.weights)
    for a, b in zip(model.weights, restored.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=a.path)
    assert_same_outputs(model, restored, inputs(masked=kind == "pretrainer"))
    # load_checkpoint also reads .keras files: a task model whole (as a Hugging Face head folder), the BERT
    # out of any model with model="encoder".
    if kind == "classifier":
        whole = load_checkpoint(path)
        assert whole.task == "classification"
        assert_same_outputs(model, whole, inputs())
    encoder = load_checkpoint(path, model="encoder")
    assert isinstance(encoder, BertEncoder)
    assert_bitwise_equal(model_weights(encoder), model_weights(load_checkpoint(hf_pretraining_dir)))


def test_keras_directory_encoder_and_pretrainer(hf_pretraining_dir, tmp_path):
    pretrainer = load_checkpoint(hf_pretraining_dir, model="pretrainer")
    save_checkpoint(pretrainer, tmp_path / "p", format="keras")
    assert (tmp_path / "p" / "pretrainer.weights.h5").exists()
    assert (tmp_path / "p" / "keras_bert_config.json").exists()
    restored = load_checkpoint(tmp_path / "p", model="pretrainer")
    assert isinstance(restored, BertPretrainer)
    assert_same_outputs(pretrainer, restored, inputs(masked=True))
    save_checkpoint(pretrainer.encoder, tmp_path / "e", format="keras")
    assert (tmp_path / "e" / "encoder.weights.h5").exists()
    with pytest.warns(UserWarning, match="no pretraining heads"):
        load_checkpoint(tmp_path / "e", model="pretrainer")
    assert_same_outputs(pretrainer.encoder, load_checkpoint(tmp_path / "e"), inputs())


def test_keras_directory_errors(hf_model_dir, tmp_path):
    save_checkpoint(load_checkpoint(hf_model_dir), tmp_path, format="keras")
    data = (tmp_path / "encoder.weights.h5").read_bytes()
    (tmp_path / "encoder.weights.h5").write_bytes(data[: len(data) // 3])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load_checkpoint(tmp_path)
    (tmp_path / "encoder.weights.h5").unlink()
    with pytest.raises(FileNotFoundError, match="lacks encoder.weights.h5 or pretrainer.weights.h5"):
        load_checkpoint(tmp_path)


def test_truncated_dot_keras_file(hf_model_dir, tmp_path):
    path = save_checkpoint(load_checkpoint(hf_model_dir), tmp_path / "m.keras", format="keras")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load_checkpoint(path)


def test_a_task_model_from_before_heads_were_classes_is_refused_in_one_line(tmp_path):
    """What pre-release keras_bert wrote (its head a plain Dense named as a head class) is refused, not upgraded."""
    from keras_bert import BertConfig, BertTaskModel, build_encoder  # pylint: disable=import-outside-toplevel
    from keras_bert.models.bert_encoder import encoder_inputs  # pylint: disable=import-outside-toplevel

    encoder = build_encoder(BertConfig(vocab_size=30, hidden_size=8, num_layers=1, num_heads=2, intermediate_size=16,
                                       max_position_embeddings=16))
    ids = encoder_inputs()
    old = BertTaskModel(ids, keras.layers.Dense(2, name="classifier")(encoder(ids)["pooled_output"]),
                        task="classification")
    old.save(tmp_path / "old.keras")
    with pytest.raises(ValueError, match=r"old\.keras holds a task model \('classification'\) saved by a pre-release "
                       r"keras_bert.*plain Dense 'classifier'.*model\.save\(\) it again") as refused:
        load_checkpoint(str(tmp_path / "old.keras"))
    assert "\n" not in str(refused.value)
