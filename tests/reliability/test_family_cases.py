"""Round four on the families (issue 44 §1, §2, §7): hostile config fields, cut files, lengths and formats a
family does not hold, one row per case, each refused in one line naming the file, field or flag; and the pairs
and conversions that were silently wrong, now equal to transformers or replaced cleanly."""

import os

import numpy as np
import pytest

import keras_bert
from keras_bert.models.families import FAMILIES
from tests.reliability.conftest import assert_api_error, real_vocab_file

BASE = {"bert": dict(model_type="bert", vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32),
        "distilbert": dict(model_type="distilbert", vocab_size=50, dim=16, n_layers=1, n_heads=2, hidden_dim=32),
        "modernbert": dict(model_type="modernbert", vocab_size=50, hidden_size=16, num_hidden_layers=1,
                           num_attention_heads=2, intermediate_size=32)}
BASE["roberta"] = dict(BASE["bert"], model_type="roberta", type_vocab_size=1)
BASE["electra"] = dict(BASE["bert"], model_type="electra")


def config_json(family, **fields):
    """`family`'s config.json dict with `fields` changed, read as keras_bert reads a folder's."""
    return FAMILIES[family].config_from_huggingface(dict(BASE[family], **fields), "folder/config.json")


def tiny_modernbert():
    from keras_bert.models.modernbert import ModernBertConfig, ModernBertEncoder

    return ModernBertEncoder(ModernBertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2,
                                              intermediate_size=32, max_position_embeddings=32))


def cut_merges(tmp):
    """A merges.txt cut inside the 2-byte `Ä` of its third line."""
    path = tmp / "merges.txt"
    path.write_bytes(b"#version: 0.2\nh e\nl \xc4")
    return path


def hub_check(model):
    from keras_bert.export.formats import format_records

    return format_records()["hub"].check(model, None)


def roberta_seq_length(seq_length):
    from keras_bert.export.serving_checks import checked_seq_length

    config = keras_bert.BertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                                   max_position_embeddings=514, type_vocab_size=1, position_offset=2)
    return checked_seq_length(config, None, seq_length)


# (case, call(tmp_path), error, fragments): before, each was a traceback or named nothing.
CASES = [
    ("ModernBERT rope_theta in words", lambda tmp: config_json("modernbert", global_rope_theta="ten thousand"),
     ValueError, ["folder/config.json", "global_rope_theta", "'ten thousand'", "positive number"]),
    ("ModernBERT rope_parameters theta in words", lambda tmp: config_json(
        "modernbert", rope_parameters={"sliding_attention": {"rope_theta": "ten thousand"}}),
     ValueError, ["folder/config.json", "local_rope_theta"]),
    ("ModernBERT local_attention a string", lambda tmp: config_json("modernbert", local_attention="128"),
     ValueError, ["folder/config.json", "local_attention", "'128'"]),
    ("ModernBERT norm_eps a string", lambda tmp: config_json("modernbert", norm_eps="x"),
     ValueError, ["folder/config.json", "norm_eps"]),
    ("BERT layer_norm_eps a string", lambda tmp: config_json("bert", layer_norm_eps="1e-12x"),
     ValueError, ["folder/config.json", "layer_norm_eps"]),
    ("ELECTRA max_position_embeddings a string", lambda tmp: config_json("electra", max_position_embeddings="512"),
     ValueError, ["folder/config.json", "max_position_embeddings"]),
    ("DistilBERT dim a string", lambda tmp: config_json("distilbert", dim="16"),
     ValueError, ["folder/config.json", "hidden_size", "'16'"]),
    ("RoBERTa pad_token_id a string", lambda tmp: config_json("roberta", pad_token_id="one"),
     ValueError, ["folder/config.json", "pad_token_id", "'one'"]),
    ("merges.txt cut inside a character", lambda tmp: keras_bert.text.byte_bpe_files.read_merges(cut_merges(tmp)),
     ValueError, ["merges.txt", "line 3", "not UTF-8"]),
    ("RoBERTa seq_length 514 of 514 rows", lambda tmp: roberta_seq_length(514),
     ValueError, ["seq_length=514", "512 positions", "use seq_length <= 512"]),
    ("ModernBERT saved as a Google checkpoint", lambda tmp: keras_bert.save_checkpoint(
        tiny_modernbert(), tmp / "google", format="google"), ValueError, ["modernbert", "Google TF1", "huggingface"]),
    ("ModernBERT exported to TF Hub", lambda tmp: hub_check(tiny_modernbert()),
     ValueError, ["--formats hub", "modernbert", "savedmodel"]),
]


@pytest.mark.parametrize("case, call, error, fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_family_input_is_refused_in_one_line(tmp_path, case, call, error, fragments):
    import keras_bert.text.byte_bpe_files  # noqa: F401  (the merges reader the row calls)

    assert_api_error(lambda: call(tmp_path), error, *fragments)
    assert not os.path.exists(tmp_path / "google"), case  # refused before anything is written


def test_every_family_reads_a_good_config_and_serves_its_base_model():
    """Every family's base model says what it is (ModernBERT's was refused by export); RoBERTa's 66 rows give
    64 usable positions, the default length where 128 does not fit (it picked 66)."""
    from keras_bert.export.exporter import default_seq_length
    from keras_bert.tasks.encoder_serving import EncoderServing
    from keras_bert.tasks.registry import serving_for

    assert {name: type(config_json(name)).__name__ for name in BASE}["modernbert"] == "ModernBertConfig"
    assert serving_for(tiny_modernbert()) is EncoderServing
    roberta = keras_bert.BertConfig(vocab_size=50, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                                    max_position_embeddings=66, type_vocab_size=1, position_offset=2)
    assert default_seq_length(keras_bert.build_encoder(roberta)) == 64
    assert roberta_seq_length(512) == 512


def test_a_text_pair_of_a_one_type_family_is_packed_with_type_ids_0():
    """DistilBERT (one token type row): `[CLS] A [SEP] B [SEP]`, every type id 0, as DistilBertTokenizer gives
    (before: B typed 1, a gather out of [0, 1) in every pair signature); BERT's B keeps type 1."""
    from keras_bert.models.families import bind_pair_layout
    from keras_bert.text.preprocessor import Preprocessor

    tokenizer = keras_bert.Tokenizer(real_vocab_file())
    packed = {}
    for types in (1, 2):
        config = keras_bert.BertConfig(vocab_size=30522, type_vocab_size=types)
        preprocessor = Preprocessor(bind_pair_layout(tokenizer, config), seq_length=12)
        packed[types] = {k: v.numpy() for k, v in preprocessor(["who wrote it"], ["shakespeare did"]).items()}
    np.testing.assert_array_equal(packed[1]["input_word_ids"], packed[2]["input_word_ids"])
    assert packed[1]["input_type_ids"].max() == 0 and packed[2]["input_type_ids"].max() == 1


def test_a_conversion_replaces_an_earlier_models_tokenizer_files(tiny_checkpoint, tmp_path):
    """Before: a RoBERTa's vocab.json + merges.txt (or an XLM-R's sentencepiece.bpe.model) left in --output won
    over the new model's vocab.txt. Now every checkpoint file of the earlier model goes when the new one moves
    in; the user's other files stay; nothing is left beside the folder (the staging folder)."""
    out = tmp_path / "out"
    out.mkdir()
    for name, content in (("vocab.json", '{"<s>": 0}'), ("merges.txt", "a b\n"), ("sentencepiece.bpe.model", "x"),
                          ("config.json", "{}"), ("notes.md", "mine")):
        (out / name).write_text(content, encoding="utf-8")
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    keras_bert.save_checkpoint(encoder, out, format="huggingface")
    written = set(os.listdir(out))
    assert not written & {"vocab.json", "merges.txt", "sentencepiece.bpe.model"}, written
    assert {"notes.md", "vocab.txt", "config.json", "model.safetensors"} <= written, written
    assert os.listdir(tmp_path) == ["out"]  # the staging folder is gone
    assert keras_bert.load_checkpoint(out, model="encoder").text_config.kind == "wordpiece"


def test_distilbert_question_answering_on_text_pairs_equals_transformers(tmp_path):
    """A DistilBertForQuestionAnswering folder on (question, context) pairs packed as its family packs them
    (before: B typed 1, a token_type_embeddings gather error in export and finetune): transformers' ids, and its
    start and end logits."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")

    from keras_bert.models.model_operations import find_encoder
    from keras_bert.models.families import bind_pair_layout
    from keras_bert.text.preprocessor import Preprocessor

    with open(real_vocab_file(), encoding="utf-8") as f:
        (tmp_path / "vocab.txt").write_text("".join(f.readlines()[:2000]), encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast.from_pretrained(str(tmp_path))
    torch.manual_seed(0)
    config = transformers.DistilBertConfig(vocab_size=2000, dim=16, n_layers=1, n_heads=2, hidden_dim=32,
                                           max_position_embeddings=64, initializer_range=0.5)
    transformers.DistilBertForQuestionAnswering(config).save_pretrained(tmp_path / "qa")
    tokenizer.save_pretrained(tmp_path / "qa")
    questions, contexts = ["who wrote the play ?", "where is it"], ["the man wrote the play in a city .", "here"]
    batch = tokenizer(questions, contexts, padding=True, return_tensors="pt", return_token_type_ids=False)
    with torch.no_grad():
        expected = transformers.DistilBertForQuestionAnswering.from_pretrained(tmp_path / "qa").eval()(**batch)
    model = keras_bert.load_checkpoint(tmp_path / "qa")
    packer = Preprocessor(bind_pair_layout(model.text_config.tokenizer(), find_encoder(model).config), 32,
                          padding="longest")
    inputs = packer(questions, contexts)
    np.testing.assert_array_equal(inputs["input_word_ids"].numpy(), batch["input_ids"].numpy())
    assert inputs["input_type_ids"].numpy().max() == 0
    served = model(inputs)
    mask = batch["attention_mask"].numpy().astype(bool)
    for name in ("start_logits", "end_logits"):
        assert np.abs(np.asarray(served[name]) - getattr(expected, name).numpy())[mask].max() <= 1e-5, name
