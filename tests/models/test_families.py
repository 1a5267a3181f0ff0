"""models/families.py: the family records, their lookups, their weight-name maps; a RoBERTa model carries its
family (a `.keras` file saves back as a RoBERTa Hugging Face folder in a fresh process); MLM-only pretraining."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from keras_bert import BertConfig
from keras_bert.models import BertEncoder, BertPretrainer, build_classifier
from keras_bert.models.families import FAMILIES, ROBERTA, family_for_model_type, family_of

from tests.models.tiny_bert import TINY, encoder_batch, pretraining_batch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROBERTA_TINY = TINY.replace(family="roberta", position_offset=2, type_vocab_size=1, max_position_embeddings=34,
                            layer_norm_eps=1e-5)


def test_model_types_pick_their_family_and_others_are_named_in_one_line():
    types = ("bert", "roberta", "xlm-roberta", "electra", "distilbert", "modernbert", "deberta-v2")
    assert [family_for_model_type(t).name for t in types] == list(FAMILIES)
    with pytest.raises(ValueError, match=r"^x/config.json describes a 'gpt2' model; keras_bert reads model_type "
                                         r"'bert', 'deberta-v2', 'distilbert', 'electra', 'modernbert', 'roberta', "
                                         r"'xlm-roberta'\.$"):
        family_for_model_type("gpt2", "x/config.json")
    with pytest.raises(ValueError, match=r"names family 'gpt'; keras_bert knows \['bert', 'deberta_v3', 'distilbert', "):
        family_of(TINY.replace(family="gpt"))


def test_roberta_names_map_onto_bert_names_and_back():
    converter = ROBERTA.converter  # BERT's table under `roberta.`, its lm_head's names
    pairs = {"roberta.encoder.layer.0.attention.self.query.weight":
             ("bert/encoder/layer_0/attention/self/query/kernel", True),
             "lm_head.layer_norm.weight": ("cls/predictions/transform/LayerNorm/gamma", False),
             "lm_head.bias": ("cls/predictions/output_bias", False)}
    for theirs, canonical in pairs.items():
        assert converter.canonical_name(theirs) == canonical and converter.hf_name(canonical[0]) == (theirs, canonical[1])
    head = "ForSequenceClassification"  # classifier.dense + tanh is BERT's pooler; out_proj its classifier
    assert converter.canonical_name("classifier.dense.bias", head) == ("bert/pooler/dense/bias", False)
    assert converter.hf_name("output_weights", head) == ("classifier.out_proj.weight", False)
    assert converter.architecture(head) == "RobertaForSequenceClassification"
    assert converter.architecture_suffix("XLMRobertaModel") is None


def test_the_encoder_names_each_of_its_weights_once():
    encoder = BertEncoder(TINY)
    entries = encoder.named_variables()
    assert len({name for name, _, _ in entries}) == len(entries) == len(encoder.weights)
    assert {id(v) for _, v, _ in entries} == {id(w) for w in encoder.weights}
    assert entries[0][0] == "bert/embeddings/word_embeddings"


def test_positions_start_after_the_offset():
    encoder = BertEncoder(ROBERTA_TINY)
    table = keras.ops.convert_to_numpy(encoder.embeddings.position_embeddings.embeddings)
    shifted = BertEncoder(TINY.replace(max_position_embeddings=32, type_vocab_size=1, layer_norm_eps=1e-5))
    shifted.set_weights([w[2:] if w.shape == table.shape else w for w in encoder.get_weights()])
    batch = dict(encoder_batch(), input_type_ids=np.zeros((3, 8), "int32"))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(encoder(batch)["sequence_output"]),
                               keras.ops.convert_to_numpy(shifted(batch)["sequence_output"]), atol=1e-6)
    with pytest.raises(ValueError, match=r"exceeds max_position_embeddings=34 - position_offset=2; .* at most 32"):
        encoder({name: np.ones((1, 33), "int32") for name in batch})
    with pytest.raises(ValueError, match=r"position_offset must be an integer in \[0, max_position_embeddings=32\)"):
        TINY.replace(position_offset=32)
    with pytest.raises(ValueError, match=r"pooler_activation must be one of \('tanh', 'gelu', 'gelu_tanh', 'relu'\)"):
        TINY.replace(pooler_activation="sigmoid")


def test_a_roberta_pretrainer_is_masked_lm_only_and_bert_keeps_nsp():
    bert = BertPretrainer(TINY)
    assert bert.next_sentence and "nsp_logits" in bert.output
    model = BertPretrainer(ROBERTA_TINY)
    assert not model.next_sentence and sorted(model.output) == ["mlm_logits"]
    x, y = pretraining_batch()
    x["input_type_ids"] = np.zeros_like(x["input_type_ids"])
    y_pred = model(x)
    loss = model.compute_loss(x, y, y_pred)  # NSP labels in y are ignored: no NSP head
    mlm_only = model.compute_loss(x, {k: v for k, v in y.items() if k != "next_sentence_labels"}, y_pred)
    assert np.isfinite(float(loss)) and float(loss) == float(mlm_only)
    assert "nsp_loss" not in model.compute_metrics(x, y, y_pred)
    assert BertPretrainer.from_config(model.get_config()).next_sentence is False


def test_a_roberta_keras_file_saves_back_as_a_roberta_folder_in_a_fresh_process(tmp_path):
    model = build_classifier(BertEncoder(ROBERTA_TINY), 3, task_config={"labels": ["a", "b", "c"]})
    model.save(tmp_path / "model.keras")
    script = ("import sys, keras_bert\n"
              "keras_bert.save_checkpoint(keras_bert.load_checkpoint(sys.argv[1]), sys.argv[2], format='hf')\n")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "model.keras"), str(tmp_path / "hf")],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    assert (config["model_type"], config["architectures"], config["pad_token_id"]) == (
        "roberta", ["RobertaForSequenceClassification"], 1)
    assert BertConfig.from_dict(model.encoder.config.to_dict()) == ROBERTA_TINY
