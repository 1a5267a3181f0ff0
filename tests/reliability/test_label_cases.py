"""Round four of bad input on label lists, warnings and `.keras` files (issue 44 §5, §6): each row loaded
silently wrong or printed code before; now it is refused in one line naming the file (exit 2 from a
tool), or, for a label2id transformers' own default left behind, read as transformers reads it."""

import json
import shutil
import warnings

import pytest

import keras_bert
from tests.reliability.conftest import assert_api_error, assert_one_line_error, run_subprocess

LABELS_OF_A_HEAD_OF_TWO = [  # config.json's changes -> the message's fragments (None: loads, id2label's names)
    ("more names than outputs", dict(id2label={"0": "a", "1": "b", "2": "c"}, label2id=None),
     ["config.json lists 3 label names", "has 2 outputs"]),
    ("fewer names", dict(id2label={"0": "a"}, label2id=None), ["config.json lists 1 label names", "has 2 outputs"]),
    ("num_labels over the head", dict(id2label=None, label2id=None, num_labels=3), ["lists 3 label names", "2 outputs"]),
    ("a name twice", dict(id2label={"0": "a", "1": "a"}, label2id=None), ["config.json", "lists a name twice (a)"]),
    ("a null name", dict(id2label={"0": "a", "1": None}, label2id=None), ["config.json: id2label[1] is None"]),
    ("a list as a name", dict(id2label={"0": "a", "1": ["b"]}, label2id=None), ["id2label[1] is ['b']"]),
    ("id2label a list", dict(id2label=["a", "b"], label2id=None), ["config.json: id2label is ['a', 'b']"]),
    ("label2id swapped", dict(id2label={"0": "neg", "1": "pos"}, label2id={"pos": 0, "neg": 1}),
     ["config.json: label2id disagrees with id2label ('neg', 'pos'"]),
    ("label2id naming others", dict(id2label={"0": "neg", "1": "pos"}, label2id={"negative": 0, "positive": 1}),
     ["label2id disagrees"]),
    ("label2id transformers' stale default", dict(id2label={"0": "neg", "1": "pos"},
                                                   label2id={"LABEL_0": 0, "LABEL_1": 1}), None),
]


@pytest.fixture(scope="module")
def hf_classifier(tiny_checkpoint, tmp_path_factory):
    """A 2-output Hugging Face BertForSequenceClassification folder as transformers writes it (no keras_bert
    task entry) and its config.json."""
    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    folder = tmp_path_factory.mktemp("hf_classifier") / "cls"
    keras_bert.save_checkpoint(keras_bert.build_classifier(encoder, 2, task_config={"labels": ["neg", "pos"]}),
                               folder, format="huggingface")
    config = json.loads((folder / "config.json").read_text())
    config.pop("keras_bert_task")
    return folder, config


def changed(hf_classifier, folder, changes):
    source, config = hf_classifier
    shutil.copytree(source, folder)
    config = dict(config, **changes)
    (folder / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not None}))
    return folder


@pytest.mark.parametrize("case, changes, fragments", LABELS_OF_A_HEAD_OF_TWO, ids=[c[0] for c in LABELS_OF_A_HEAD_OF_TWO])
def test_a_label_list_that_does_not_fit_the_head_is_refused(hf_classifier, tmp_path, case, changes, fragments):
    """Before: 3 names over 2 outputs loaded with 3 labels, a swapped label2id was not read, None became 'None'."""
    folder = changed(hf_classifier, tmp_path / "cls", changes)
    if fragments is None:
        assert keras_bert.load_checkpoint(folder).task_config["labels"] == list(changes["id2label"].values())
    else:
        assert_api_error(lambda: keras_bert.load_checkpoint(folder), ValueError, *fragments)


def test_a_keras_file_whose_labels_do_not_fit_its_head_is_refused(tiny_classifier, tmp_path):
    """Before: `load_checkpoint` / export read the 3 names of a 2-output classifier (export then failed later)."""
    import zipfile

    for labels, fragment in ((["a", "b", "c"], "lists 3 label names but the head of model"), (["a", None], "None")):
        path = tmp_path / f"{len(labels)}_{labels[-1]}.keras"
        with zipfile.ZipFile(tiny_classifier) as source, zipfile.ZipFile(path, "w") as target:
            for item in source.infolist():
                data = source.read(item.filename)
                if item.filename == "config.json":
                    config = json.loads(data)
                    config["config"]["task_config"]["labels"] = labels
                    data = json.dumps(config)
                target.writestr(item, data)
        assert_api_error(lambda: keras_bert.load_checkpoint(str(path)), ValueError, path.name, fragment)


def test_a_format_that_refuses_the_model_says_nothing_else_first(tmp_path):
    """Before: 'writing only its BERT encoder; the weights of ['classifier'] ... are dropped' and then the refusal
    (keras-hub holds no ModernBERT). After: the refusal alone."""
    from keras_bert.models.families import build_family_encoder
    from keras_bert.models.modernbert.modernbert_config import ModernBertConfig

    encoder = build_family_encoder(ModernBertConfig(vocab_size=100, hidden_size=16, num_layers=1, num_heads=2,
                                                    intermediate_size=32, max_position_embeddings=64))
    classifier = keras_bert.build_classifier(encoder, 2, task_config={"labels": ["neg", "pos"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_api_error(lambda: keras_bert.save_checkpoint(classifier, tmp_path / "kh", format="keras_hub"),
                         ValueError, "'modernbert' model", "keras-hub presets")
    assert not caught, [str(w.message) for w in caught]


def test_a_keras_file_of_another_kind_is_refused_naming_it(tmp_path):
    """Before: 'Sequential 'sequential' contains no BertEncoder' (which file?), after a text-contract warning."""
    import keras

    plain = tmp_path / "plain.keras"
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]).save(plain)
    assert_api_error(lambda: keras_bert.load_checkpoint(str(plain)), ValueError, "plain.keras holds a Sequential",
                     "no keras_bert encoder")


@pytest.mark.slow
def test_export_refuses_a_misfit_label_list_in_one_line(hf_classifier, tmp_path):
    """A fresh process, as users run it: one line, exit 2, nothing written. Before: the folder loaded with 3
    labels over 2 outputs."""
    folder = changed(hf_classifier, tmp_path / "three", dict(id2label={"0": "a", "1": "b", "2": "c"}, label2id=None))
    result = run_subprocess("export", [str(folder), "--formats", "savedmodel", "--base_dir", str(tmp_path / "sm")])
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "export.py: error:", "config.json lists 3 label names", "2 outputs")
    assert not [path for path in (tmp_path / "sm").rglob("*") if path.is_file()]  # nothing half-written
