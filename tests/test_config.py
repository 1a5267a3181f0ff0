import json

import pytest

from keras_bert import PRESETS, BertConfig


def test_presets_cover_paper_sizes_and_the_24_small_berts():
    small = [n for n in PRESETS if n.startswith("bert_uncased_L-")]
    assert len(small) == 24
    config = BertConfig.from_preset("bert_uncased_L-4_H-256_A-4")
    assert (config.num_layers, config.hidden_size, config.num_heads, config.intermediate_size) == (4, 256, 4, 1024)
    large = BertConfig.from_preset("bert_large_uncased")
    assert (large.num_layers, large.hidden_size, large.num_heads) == (24, 1024, 16)


def test_unknown_preset_lists_known_ones():
    with pytest.raises(ValueError, match="Unknown preset 'bert_huge'.*bert_base_uncased"):
        BertConfig.from_preset("bert_huge")


def test_hidden_size_must_divide_by_heads():
    with pytest.raises(ValueError, match=r"hidden_size \(100\) must be divisible by num_heads \(12\)"):
        BertConfig(hidden_size=100)


def test_reads_google_config_with_tanh_gelu(tmp_path):
    google = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
              "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
              "type_vocab_size": 2, "vocab_size": 30522}
    (tmp_path / "bert_config.json").write_text(json.dumps(google))
    config = BertConfig.from_json(str(tmp_path))
    assert config.hidden_act == "gelu_tanh"  # Google's "gelu" is the tanh form
    assert config == BertConfig.from_preset("bert_tiny_uncased")


def test_reads_hugging_face_config_with_exact_gelu(minilm_dir):
    config = BertConfig.from_json(minilm_dir)
    assert config.hidden_act == "gelu"
    assert (config.num_layers, config.hidden_size, config.num_heads) == (6, 384, 12)


def test_activation_survives_google_and_hf_round_trips():
    for act in ("gelu", "gelu_tanh", "relu"):
        config = BertConfig(hidden_act=act)
        assert BertConfig.from_source_dict(config.to_google_dict()) == config
        assert BertConfig.from_source_dict(config.to_huggingface_dict()) == config
        assert BertConfig.from_dict(config.to_dict()) == config


def test_bad_config_files_say_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match="config.json or bert_config.json"):
        BertConfig.from_json(str(tmp_path))
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        BertConfig.from_json(str(tmp_path / "config.json"))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "vocab_size": 10}))
    with pytest.raises(ValueError, match="lacks the BERT config field 'hidden_size'"):
        BertConfig.from_json(str(tmp_path / "config.json"))


def test_embedding_size_defaults_to_hidden_and_round_trips():
    """ELECTRA-small's embedding_size (E != H) survives our dict, a .keras config and Google's bert_config.json
    (keras_bert's own key); None means hidden_size."""
    assert (BertConfig().embedding_size, BertConfig().embedding_width) == (None, 768)
    config = BertConfig(hidden_size=256, num_heads=4, embedding_size=128, family="electra")
    assert config.embedding_width == 128
    assert BertConfig.from_dict(config.to_dict()) == config
    assert config.to_google_dict()["keras_bert_embedding_size"] == 128
    assert BertConfig.from_source_dict(config.to_google_dict()) == config
    assert "keras_bert_embedding_size" not in BertConfig().to_google_dict()
    with pytest.raises(ValueError, match=r"^BertConfig.embedding_size must be a positive integer, got 0\.$"):
        BertConfig(embedding_size=0)
