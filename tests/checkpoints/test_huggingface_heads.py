"""Task heads out to Hugging Face and back: transformers' pipelines run keras_bert fine-tunes with
equal logits, and HF fine-tuned folders (made by transformers itself) load as keras_bert task models.

The peer is transformers (its pipelines, its `BertFor...` classes, its tokenizer reading our
tokenizer files) on the real MiniLM-L6; keras_bert's side tokenizes with its own text contract.
"""

import json
import os
import warnings

import numpy as np
import pytest

from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.config import BertConfig
from keras_bert.models import build_classifier, build_encoder, build_span_labeler, build_token_classifier
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.tasks import task_of
from keras_bert.text.preprocessor import Preprocessor
from keras_bert.text.text_config import TextConfig
from tests.conftest import run_tool

from .conftest import TINY, randomize, save_hf, write_vocab

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TEXTS = ["The ferry left Helsinki twenty minutes late, again.",
         "Übermäßig süße Crêpes? I'd still order them twice!",
         "Nobody expected the quarterly report to mention penguins."]
PAIRS = ["Did the ferry leave on time?", "Would you order the crêpes?", "Was there a report?"]
TINY_TEXTS = ["tok5 tok17 tok30", "tok40 tok8", "tok11 tok12 tok13 tok14"]  # words of the tiny vocab
LABELS = ["bleak", "neutral", "cheerful"]
TAGS = ["O", "B-PLACE", "I-PLACE", "B-THING", "I-THING"]
TOLERANCE = 1e-4


def seeded_head(model, layer, seed):
    """Random head weights (a fresh head's zero bias would hide a bias mix-up)."""
    rng = np.random.default_rng(seed)
    dense = model.get_layer(layer)
    dense.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in dense.get_weights()])
    return model


def keras_inputs(model, text_a, text_b=None):
    """keras_bert's own packing of the texts, from the model's text contract."""
    import tensorflow as tf

    seq_length = min(64, model.encoder.config.max_position_embeddings)
    preprocessor = Preprocessor(model.text_config.tokenizer(), seq_length)  # padded: masked, as a batch is
    return {k: v.numpy() for k, v in preprocessor(tf.constant(text_a),
                                                   None if text_b is None else tf.constant(text_b)).items()}


def torch_inputs(inputs):
    return {"input_ids": torch.tensor(inputs["input_word_ids"]).long(),
            "attention_mask": torch.tensor(inputs["input_mask"]).long(),
            "token_type_ids": torch.tensor(inputs["input_type_ids"]).long()}


@pytest.fixture(scope="module")
def minilm(minilm_dir):
    return load_checkpoint(minilm_dir, model="encoder")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny random encoder with a text contract (where MiniLM adds nothing)."""
    encoder = build_encoder(BertConfig.from_source_dict(dict(TINY, model_type="bert")))  # HF: erf GELU
    encoder.text_config = TextConfig(write_vocab(str(tmp_path_factory.mktemp("tiny_vocab"))), max_seq_length=16)
    return encoder


@pytest.fixture(scope="module")
def classifier_dir(minilm, tmp_path_factory):
    model = seeded_head(build_classifier(minilm, 3, task_config={"labels": LABELS, "seq_length": 64}),
                        "classifier", 0)
    path = tmp_path_factory.mktemp("hf_classifier")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the head is written, not dropped with a warning
        save_checkpoint(model, path, format="huggingface")
    return model, str(path)


def test_text_classification_pipeline_runs_our_classifier(classifier_dir):
    model, path = classifier_dir
    config = json.load(open(os.path.join(path, "config.json"), encoding="utf-8"))
    assert config["architectures"] == ["BertForSequenceClassification"]
    assert config["problem_type"] == "single_label_classification"
    assert config["id2label"] == {"0": "bleak", "1": "neutral", "2": "cheerful"}
    pipe = transformers.pipeline("text-classification", model=path, top_k=None, function_to_apply="none")
    theirs = np.array([[{r["label"]: r["score"] for r in rows}[name] for name in LABELS] for rows in pipe(TEXTS)])
    ours = np.asarray(model(keras_inputs(model, TEXTS)))
    diff = np.abs(theirs - ours).max()
    print(f"text-classification pipeline vs keras_bert: max |logit diff| = {diff:.2e}")
    assert diff <= TOLERANCE
    assert [rows[0]["label"] for rows in pipe(TEXTS)] == [LABELS[i] for i in ours.argmax(-1)]  # names
    pairs = pipe([{"text": a, "text_pair": b} for a, b in zip(PAIRS, TEXTS)])  # [CLS] a [SEP] b [SEP]
    theirs = np.array([[{r["label"]: r["score"] for r in rows}[name] for name in LABELS] for rows in pairs])
    assert np.abs(theirs - np.asarray(model(keras_inputs(model, PAIRS, TEXTS)))).max() <= TOLERANCE


def test_saved_classifier_loads_back_as_the_same_task_model(classifier_dir):
    model, path = classifier_dir
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = load_checkpoint(path)
    assert isinstance(loaded, BertTaskModel)
    assert (loaded.task, loaded.task_config["labels"]) == ("classification", LABELS)
    inputs = keras_inputs(model, TEXTS)
    np.testing.assert_allclose(np.asarray(loaded(inputs)), np.asarray(model(inputs)), atol=1e-6)


@pytest.mark.parametrize("task,problem_type,outputs", [("pair_classification", "single_label_classification", 3),
                                                       ("regression", "regression", 1),
                                                       ("multi_label", "multi_label_classification", 3)])
def test_other_sequence_heads(tiny, tmp_path, task, problem_type, outputs):
    task_config = {"labels": LABELS} if outputs > 1 else {}
    if task == "pair_classification":
        task_config["text_b"] = "hypothesis"
    declared = {"problem_type": problem_type} if task == "multi_label" else {}  # else transformers' reading
    model = seeded_head(build_classifier(tiny, outputs, task=task, task_config=task_config, **declared), "classifier", 1)
    save_checkpoint(model, tmp_path, format="hf")
    pipe = transformers.pipeline("text-classification", model=str(tmp_path), top_k=None)
    assert pipe.model.config.problem_type == problem_type
    text_b = TINY_TEXTS[::-1] if task == "pair_classification" else None
    ours = np.asarray(model(keras_inputs(model, TINY_TEXTS, text_b)))
    queries = [{"text": a, "text_pair": b} for a, b in zip(TINY_TEXTS, text_b)] if text_b else TINY_TEXTS
    names = LABELS if outputs > 1 else ["LABEL_0"]
    theirs = np.array([[{r["label"]: r["score"] for r in rows}[name] for name in names]
                       for rows in pipe(queries, function_to_apply="none")])
    assert np.abs(theirs - ours).max() <= TOLERANCE
    loaded = load_checkpoint(tmp_path)
    assert loaded.task == task and loaded.task_config == dict(task_config, seq_length=16)


def test_token_classification_pipeline_runs_our_tagger(minilm, tmp_path):
    model = seeded_head(build_token_classifier(minilm, len(TAGS), task_config={"labels": TAGS}),
                        "token_classifier", 2)
    save_checkpoint(model, tmp_path, format="huggingface")
    pipe = transformers.pipeline("token-classification", model=str(tmp_path), ignore_labels=[])
    assert pipe.model.config.architectures == ["BertForTokenClassification"]
    inputs = keras_inputs(model, TEXTS[:1])
    ours = np.asarray(model(inputs))[0]  # (seq, tags)
    with torch.no_grad():
        theirs = pipe.model(**pipe.tokenizer(TEXTS[:1], return_tensors="pt")).logits.numpy()[0]
    assert inputs["input_mask"][0].sum() == len(theirs)  # the same pieces, then our padding
    ours = ours[:len(theirs)]
    assert np.abs(theirs - ours).max() <= TOLERANCE
    probabilities = np.exp(ours - ours.max(-1, keepdims=True))
    probabilities /= probabilities.sum(-1, keepdims=True)
    for row in pipe(TEXTS[0]):
        assert row["entity"] == TAGS[probabilities[row["index"]].argmax()]  # tag names
        assert abs(row["score"] - probabilities[row["index"]].max()) <= TOLERANCE
    loaded = load_checkpoint(tmp_path)
    assert (loaded.task, loaded.task_config["labels"]) == ("token_classification", TAGS)
    np.testing.assert_allclose(np.asarray(loaded(inputs))[0, :len(ours)], ours, atol=1e-6)


def test_question_answering_head_in_transformers(tiny, tmp_path):
    """transformers 5.x has no question-answering pipeline: its BertForQuestionAnswering is the peer."""
    model = seeded_head(build_span_labeler(tiny, task_config={"doc_stride": 32}), "span_labeler", 3)
    save_checkpoint(model, tmp_path, format="huggingface")
    theirs = transformers.AutoModelForQuestionAnswering.from_pretrained(str(tmp_path)).eval()
    assert "bert.pooler.dense.weight" not in dict(theirs.named_parameters())
    inputs = keras_inputs(model, TINY_TEXTS[:2], TINY_TEXTS[1:])
    ours = model(inputs)
    with torch.no_grad():
        output = theirs(**torch_inputs(inputs))
    for name in ("start_logits", "end_logits"):
        assert np.abs(getattr(output, name).numpy() - np.asarray(ours[name])).max() <= TOLERANCE
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no pooler in the folder, and none needed: no warning
        loaded = load_checkpoint(tmp_path)
    assert loaded.task == "squad" and loaded.task_config["doc_stride"] == 32


def test_transformers_fine_tuned_folder_loads_as_our_classifier(minilm_dir, tmp_path):
    torch.manual_seed(0)
    theirs = transformers.BertForSequenceClassification.from_pretrained(
        minilm_dir, num_labels=3, id2label=dict(enumerate(LABELS)), label2id={n: i for i, n in enumerate(LABELS)})
    theirs.save_pretrained(tmp_path)
    transformers.AutoTokenizer.from_pretrained(minilm_dir).save_pretrained(tmp_path)
    assert not os.path.exists(os.path.join(tmp_path, "vocab.txt"))  # transformers 5: tokenizer.json only
    ours = load_checkpoint(tmp_path)
    assert (ours.task, task_of(ours), ours.task_config["labels"]) == (None, "classification", LABELS)
    inputs = keras_inputs(ours, TEXTS)
    with torch.no_grad():
        expected = theirs.eval()(**torch_inputs(inputs)).logits.numpy()
    diff = np.abs(np.asarray(ours(inputs)) - expected).max()
    print(f"transformers' BertForSequenceClassification vs load_checkpoint: max |logit diff| = {diff:.2e}")
    assert diff <= TOLERANCE


def test_transformers_tagger_span_and_default_heads_load_with_equal_logits(tmp_path):
    inputs = {"input_word_ids": np.array([[2, 9, 17, 30, 3, 41, 3, 0]], "int32"),
              "input_mask": np.array([[1, 1, 1, 1, 1, 1, 1, 0]], "int32"),
              "input_type_ids": np.array([[0, 0, 0, 0, 0, 1, 1, 0]], "int32")}
    config = transformers.BertConfig(**TINY, id2label={0: "O", 1: "B-LOC", 2: "I-LOC"},
                                     label2id={"O": 0, "B-LOC": 1, "I-LOC": 2})
    tagger = randomize(transformers.BertForTokenClassification(config), seed=4)
    spans = randomize(transformers.BertForQuestionAnswering(transformers.BertConfig(**TINY)), seed=5)
    default = randomize(transformers.BertForSequenceClassification(transformers.BertConfig(**TINY)), seed=6)
    with torch.no_grad():
        expected = tagger(**torch_inputs(inputs)).logits.numpy(), spans(**torch_inputs(inputs))
        expected_default = default(**torch_inputs(inputs)).logits.numpy()
    ours = load_checkpoint(save_hf(default, tmp_path / "default"))  # config.json holds no id2label
    assert (task_of(ours), ours.task_config["labels"]) == ("classification", ["LABEL_0", "LABEL_1"])
    assert np.abs(expected_default - np.asarray(ours(inputs))).max() <= TOLERANCE
    ours = load_checkpoint(save_hf(tagger, tmp_path / "tagger"))
    assert (ours.task, ours.task_config["labels"]) == ("token_classification", ["O", "B-LOC", "I-LOC"])
    assert np.abs(expected[0] - np.asarray(ours(inputs))).max() <= TOLERANCE
    ours = load_checkpoint(save_hf(spans, tmp_path / "spans"))
    assert ours.task == "squad"
    for name in ("start_logits", "end_logits"):
        assert np.abs(getattr(expected[1], name).numpy() - np.asarray(ours(inputs)[name])).max() <= TOLERANCE


def test_export_tool_serves_a_transformers_fine_tuned_folder(tmp_path):
    config = transformers.BertConfig(**TINY, id2label={0: "no", 1: "yes"}, label2id={"no": 0, "yes": 1})
    folder = save_hf(randomize(transformers.BertForSequenceClassification(config), seed=6), tmp_path / "hf")
    result = run_tool("export", folder, "--name", "hf_classifier", "--formats", "savedmodel",
                      "--base_dir", tmp_path / "savedmodels", "--seq_length", 16)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Model: classification" in result.stdout and "Label names: ['no', 'yes']" in result.stdout
    assert "All exports match the Keras model." in result.stdout


def test_head_without_a_huggingface_architecture_is_refused(tiny, tmp_path):
    import keras

    from keras_bert.models.bert_encoder import encoder_inputs

    inputs = encoder_inputs()  # a head assembled by hand: no TaskHead says which HF class holds it
    model = BertTaskModel(inputs, keras.layers.Dense(2)(tiny(inputs)["pooled_output"]), task="my_ranking_task")
    with pytest.raises(ValueError, match=r"task 'my_ranking_task'.*no Hugging Face BERT architecture"):
        save_checkpoint(model, tmp_path, format="huggingface")
    assert not os.listdir(tmp_path)  # refused before anything was written


def test_encoder_of_a_task_folder_on_request(tiny, tmp_path):
    save_checkpoint(build_token_classifier(tiny, 3), tmp_path, format="hf")
    with pytest.warns(UserWarning) as caught:  # the head's weights are not used, nor is the absent pooler
        encoder = load_checkpoint(tmp_path, model="encoder")
    assert any("ignored 2 variable(s)" in str(w.message) and "classifier" in str(w.message) for w in caught)
    assert not isinstance(encoder, BertTaskModel)
    assert isinstance(load_checkpoint(tmp_path, model="auto"), BertTaskModel)  # what tools/export.py loads
