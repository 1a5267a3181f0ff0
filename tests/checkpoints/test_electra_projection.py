"""ELECTRA with embedding_size != hidden_size (ELECTRA-small, every generator): the embeddings are E wide and
`embeddings_project` maps them to H. Seeded transformers folders (E 8, H 16) load with equal outputs and save
back as folders transformers loads with equal outputs, for the base model and every head keras_bert holds."""

import json
import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models.model_operations import find_encoder

from tests.checkpoints.conftest import randomize
from tests.checkpoints.test_roberta_checkpoint import ELECTRA, IDS, MASK, TOLERANCE, max_difference, ours, reference

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

SMALL = dict(ELECTRA, embedding_size=8)  # hidden_size 16
HEADS = ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering")


def electra_folder(path, suffix, seed, **changes):
    """A seeded `Electra{suffix}` saved by transformers in `path`; returns the model."""
    options = {"num_labels": 3} if suffix in ("ForSequenceClassification", "ForTokenClassification") else {}
    model = getattr(transformers, "Electra" + suffix)(transformers.ElectraConfig(**dict(SMALL, **changes), **options))
    randomize(model, seed=seed).save_pretrained(path)
    return model


def load_quietly(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no tokenizer files here: text_config None, with a warning
        return load_checkpoint(path, **kwargs)


@pytest.mark.parametrize("suffix", HEADS)
def test_projected_electra_equals_transformers_both_ways(suffix, tmp_path):
    theirs = electra_folder(tmp_path / "hf", suffix, seed=20 + HEADS.index(suffix))
    loaded = load_quietly(tmp_path / "hf", model="pretrainer" if suffix == "ForMaskedLM" else None)
    encoder = find_encoder(loaded)
    assert (encoder.config.embedding_size, encoder.config.hidden_size) == (8, 16)
    assert encoder.embeddings.embedding_table.shape == (64, 8)
    assert "bert/embeddings_project/kernel" in {name for name, _, _ in encoder.named_variables()}
    load_diff = max_difference(reference(theirs), ours(loaded, suffix), MASK)
    assert load_diff <= TOLERANCE

    save_checkpoint(loaded, tmp_path / "back", format="huggingface")
    written = json.loads((tmp_path / "back" / "config.json").read_text())
    assert (written["embedding_size"], written["hidden_size"]) == (8, 16)
    back = type(theirs).from_pretrained(tmp_path / "back").eval()
    save_diff = max_difference(reference(back), ours(loaded, suffix), MASK)
    assert save_diff <= TOLERANCE
    print(f"\nparity electra E=8 H=16 {suffix}: load {load_diff:.2e}, save {save_diff:.2e}")


def test_the_generator_head_reads_gelu_whatever_the_encoders_activation(tmp_path):
    """HF's ElectraGeneratorPredictions computes the erf GELU whatever hidden_act says; its transform maps
    hidden_size (16) -> embedding_size (8), tied to the word embeddings."""
    theirs = electra_folder(tmp_path, "ForMaskedLM", seed=30, hidden_act="relu")
    loaded = load_quietly(tmp_path, model="pretrainer")
    head = loaded.get_layer("mlm_head")
    assert (head.hidden_act, head.transform.kernel.shape, loaded.encoder.config.hidden_act) == ("gelu", (16, 8), "relu")
    assert max_difference(reference(theirs), ours(loaded, "ForMaskedLM"), MASK) <= TOLERANCE


def test_projected_electra_through_google_and_keras_formats_and_refused_where_it_cannot_be_held(tmp_path):
    electra_folder(tmp_path / "hf", "Model", seed=31)
    encoder = load_quietly(tmp_path / "hf")
    expected = ours(encoder, "Model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save_checkpoint(encoder, tmp_path / "google", format="google")
        again = load_checkpoint(tmp_path / "google")
    assert again.config == encoder.config
    assert max_difference(expected, ours(again, "Model"), MASK) == 0.0
    encoder.save(tmp_path / "encoder.keras")
    restored = keras.saving.load_model(tmp_path / "encoder.keras")
    assert restored.config.embedding_size == 8
    assert max_difference(expected, ours(restored, "Model"), MASK) == 0.0
    with pytest.raises(ValueError, match=r"is a 'electra' model; keras_bert writes keras-hub presets of"):
        save_checkpoint(encoder, tmp_path / "hub", format="keras_hub")
    as_bert = type(encoder)(encoder.config.replace(family="bert"))
    with pytest.raises(ValueError, match=r"has embedding_size=8 != hidden_size=16; keras-hub's BertBackbone cannot"):
        save_checkpoint(as_bert, tmp_path / "hub", format="keras_hub")
    with pytest.raises(ValueError, match=r"^This model has embedding_size=8 != hidden_size=16, which Hugging "
                                         r"Face's Bert classes do not hold; save it as 'keras'\.$"):
        save_checkpoint(as_bert, tmp_path / "bert", format="huggingface")


def test_equal_sizes_build_no_projection(tmp_path):
    """embedding_size == hidden_size (ELECTRA-base/large discriminators): HF builds no embeddings_project."""
    electra_folder(tmp_path, "Model", seed=32, embedding_size=16)
    encoder = load_quietly(tmp_path)
    assert encoder.config.embedding_size is None
    assert not any("embeddings_project" in name for name, _, _ in encoder.named_variables())


def test_a_discriminator_folder_loads_its_encoder_and_refuses_a_pretrainer_in_one_line(tmp_path):
    """ElectraForPreTraining (google/electra-small-discriminator's class): its replaced-token head is not a
    masked-LM head; the encoder loads (equal to its `electra` base model), `model='pretrainer'` says what to use."""
    theirs = electra_folder(tmp_path, "ForPreTraining", seed=33)
    encoder = load_quietly(tmp_path)
    expected = reference(theirs.electra)
    assert max_difference(expected, ours(encoder, "Model"), MASK) <= TOLERANCE
    with pytest.raises(ValueError, match=r"model.safetensors is an ElectraForPreTraining, whose head keras_bert does "
                                         r"not hold; load its encoder with model='encoder' \(the default\)"):
        load_quietly(tmp_path, model="pretrainer")
