"""keras-hub RoBERTa and XLM-R presets both ways: a preset keras-hub builds loads with equal outputs and token
ids, and a keras_bert RoBERTa / XLM-R saved as "keras_hub" loads in keras-hub's own classes with equal ones."""

import json
import warnings

import keras
import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints import load_checkpoint, save_checkpoint

from tests.conftest import run_tool

keras_hub = pytest.importorskip("keras_hub")
tokenizers = pytest.importorskip("tokenizers")
sentencepiece = pytest.importorskip("sentencepiece")

LINES = ["The quick brown fox jumps over the lazy dog.", "Café naïve résumé, 3.14 and 中文 text!",
         "Hello world: it's fine; <mask> stays.", "   spaces   and\ttabs  ", "emoji 😀 and ß"]
ODD = "Hello  world"  # two spaces: keras-hub gives one "ĠĠ" + "world"; the GPT-2 pattern " " + " world"
TOLERANCE = 1e-5
PAD = 1  # RoBERTa's and XLM-R's pad id


@pytest.fixture(scope="module")
def bpe_files(tmp_path_factory):
    """vocab.json + merges.txt of a byte-level BPE trained here with RoBERTa's settings."""
    folder = tmp_path_factory.mktemp("bpe")
    trained = tokenizers.ByteLevelBPETokenizer(add_prefix_space=False)
    trained.train_from_iterator(LINES * 4, vocab_size=300, min_frequency=1, show_progress=False,
                                special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    trained.save_model(str(folder))
    return folder / "vocab.json", folder / "merges.txt"


@pytest.fixture(scope="module")
def spm_file(tmp_path_factory):
    """A SentencePiece unigram model trained here, as XLM-R's `sentencepiece.bpe.model`."""
    folder = tmp_path_factory.mktemp("spm")
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(LINES * 4), model_prefix=str(folder / "sp"),
                                             vocab_size=90, hard_vocab_limit=False, model_type="unigram",
                                             character_coverage=1.0, minloglevel=2)
    return folder / "sp.model"


def randomize(model, seed):
    """Random values in every weight: LayerNorm's ones and zero biases would hide mix-ups."""
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(0.0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    return model


def ids_of(tokenizer, texts):
    """keras_bert's tokens as right-padded `<s> ... </s>` rows and their mask."""
    rows = [[0] + row + [2] for row in tokenizer.tokenize(texts).to_list()]
    width = max(len(row) for row in rows)
    ids = np.array([row + [PAD] * (width - len(row)) for row in rows], "int32")
    return ids, (ids != PAD).astype("int32")


def difference(encoder, backbone, ids, mask):
    """Largest |sequence_output - keras-hub's output| over every position of the padded rows."""
    ours = encoder({"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)})
    theirs = backbone({"token_ids": ids, "padding_mask": mask})
    return float(np.max(np.abs(keras.ops.convert_to_numpy(ours["sequence_output"]) -
                               keras.ops.convert_to_numpy(theirs))))


def keras_bert_encoder(family, text_config, seed):
    """A seeded keras_bert encoder of a RoBERTa-style family: positions after row 2, one token type row."""
    config = keras_bert.BertConfig(vocab_size=text_config.tokenizer().vocab_size, hidden_size=16, num_layers=2,
                                   num_heads=2, intermediate_size=32, max_position_embeddings=66, type_vocab_size=1,
                                   layer_norm_eps=1e-5, position_offset=2, family=family)
    encoder = randomize(keras_bert.BertEncoder(config), seed)
    encoder.text_config = text_config
    return encoder


def test_a_keras_hub_roberta_preset_loads_with_equal_outputs_and_ids(bpe_files, tmp_path):
    vocab, merges = map(str, bpe_files)
    hub_tokenizer = keras_hub.models.RobertaTokenizer(vocabulary=vocab, merges=merges)
    backbone = randomize(keras_hub.models.RobertaBackbone(
        vocabulary_size=hub_tokenizer.vocabulary_size(), num_layers=2, num_heads=2, hidden_dim=16,
        intermediate_dim=32, max_sequence_length=32), seed=1)
    backbone.save_to_preset(str(tmp_path))
    hub_tokenizer.save_to_preset(str(tmp_path))
    with pytest.warns(UserWarning, match=r"has no pooler weights"):  # keras-hub's RobertaBackbone has none
        encoder = load_checkpoint(tmp_path)
    config = encoder.config
    assert (config.family, config.position_offset, config.max_sequence_length, config.type_vocab_size,
            config.hidden_act, config.layer_norm_eps) == ("roberta", 2, 32, 1, "gelu", 1e-5)
    tokenizer = encoder.text_config.tokenizer()
    assert encoder.text_config.kind == "byte_bpe"
    assert tokenizer.tokenize(LINES).to_list() == [list(row) for row in hub_tokenizer(LINES)]
    # Where keras-hub's tokenizer departs from Hugging Face's (a run of spaces), ours is Hugging Face's.
    reference = tokenizers.ByteLevelBPETokenizer(vocab, merges, add_prefix_space=False).encode(ODD).ids
    assert tokenizer.tokenize([ODD]).to_list() == [reference] != [list(hub_tokenizer([ODD])[0])]
    ids, mask = ids_of(tokenizer, LINES)
    assert mask.min() == 0  # right-padded rows
    assert difference(encoder, backbone, ids, mask) <= TOLERANCE


@pytest.mark.parametrize("family, backbone_class, tokenizer_class", [
    ("roberta", "RobertaBackbone", "RobertaTokenizer"), ("xlm_roberta", "XLMRobertaBackbone", "XLMRobertaTokenizer")])
def test_a_keras_bert_model_saves_as_a_preset_keras_hub_loads(family, backbone_class, tokenizer_class, bpe_files,
                                                              spm_file, tmp_path):
    """The token type row is folded into keras-hub's position rows; the pooler, which keras-hub has no place for,
    is dropped with a warning; the preset loads back equal."""
    text_config = (keras_bert.TextConfig(bpe_files[0], kind="byte_bpe", merges_file=bpe_files[1])
                   if family == "roberta" else keras_bert.TextConfig(spm_file, kind="sentencepiece"))
    encoder = keras_bert_encoder(family, text_config, seed=2)
    with pytest.warns(UserWarning, match=r"RobertaBackbone has no pooler; .*not written"):
        save_checkpoint(encoder, tmp_path, format="keras_hub")
    backbone = getattr(keras_hub.models, backbone_class).from_preset(str(tmp_path))
    hub_tokenizer = getattr(keras_hub.models, tokenizer_class).from_preset(str(tmp_path))
    tokenizer = text_config.tokenizer()
    # keras-hub's XLMRobertaTokenizer reads a literal `<mask>` as text; keras_bert reads it as transformers does
    # (its id: tests/text/test_sentencepiece_tokenizer.py), so XLM-R's ids are compared on the other lines.
    lines = LINES if family == "roberta" else [line for line in LINES if "<mask>" not in line]
    assert tokenizer.tokenize(lines).to_list() == [list(row) for row in hub_tokenizer(lines)]
    ids, mask = ids_of(tokenizer, LINES)
    assert difference(encoder, backbone, ids, mask) <= TOLERANCE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no pooler in the preset
        again = load_checkpoint(tmp_path)
    assert (again.config.family, again.text_config.kind) == (family, text_config.kind)
    assert again.config.replace(initializer_range=0.02) == encoder.config
    assert difference(again, backbone, ids, mask) <= TOLERANCE


def test_models_and_presets_keras_hub_roberta_cannot_hold_are_refused(bpe_files, tmp_path):
    text_config = keras_bert.TextConfig(bpe_files[0], kind="byte_bpe", merges_file=bpe_files[1])
    encoder = keras_bert_encoder("roberta", text_config, seed=3)
    two_types = keras_bert.BertEncoder(encoder.config.replace(type_vocab_size=2))
    with pytest.raises(ValueError, match=r"type_vocab_size=2; keras-hub's RobertaBackbone has no token types"):
        save_checkpoint(two_types, tmp_path / "a", format="keras_hub")
    electra = keras_bert.BertEncoder(encoder.config.replace(family="electra", position_offset=0))
    with pytest.raises(ValueError, match=r"is a 'electra' model; keras_bert writes keras-hub presets of BertBackbone, "
                                         r"DebertaV3Backbone, RobertaBackbone, XLMRobertaBackbone only"):
        save_checkpoint(electra, tmp_path / "b", format="keras_hub")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save_checkpoint(encoder, tmp_path / "c", format="keras_hub")
    tokenizer_json = tmp_path / "c" / "tokenizer.json"
    saved = json.loads(tokenizer_json.read_text())
    saved["config"]["add_prefix_space"] = True
    tokenizer_json.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match=r"tokenizer.json sets add_prefix_space=true"):
        load_checkpoint(tmp_path / "c")


def test_convert_checkpoint_writes_a_roberta_preset(bpe_files, tmp_path):
    text_config = keras_bert.TextConfig(bpe_files[0], kind="byte_bpe", merges_file=bpe_files[1])
    save_checkpoint(keras_bert_encoder("roberta", text_config, seed=4), tmp_path / "keras", format="keras")
    result = run_tool("convert_checkpoint", "--input", tmp_path / "keras", "--output", tmp_path / "hub",
                      "--format", "keras_hub")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "weights rearranged in keras-hub's layout (its pooler not held), max |sequence_output diff|" in result.stdout
    assert json.loads((tmp_path / "hub" / "config.json").read_text())["registered_name"] == "keras_hub>RobertaBackbone"
    assert keras_hub.models.RobertaTokenizer.from_preset(str(tmp_path / "hub")).vocabulary_size() == 300
