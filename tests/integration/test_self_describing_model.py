"""A saved task model carries what it is: every tool and loader uses it in a fresh process, alone.

Each model.keras is written by this process and read only by fresh ones (`python -c ...`,
`python tools/...`), in a folder that holds nothing else: no vocab.txt, text_config.json or
run_config.json beside it.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import keras_bert
from tests.conftest import ROOT, run_tool

TINY = keras_bert.BertConfig(vocab_size=30522, hidden_size=16, num_layers=1, num_heads=2,
                             intermediate_size=32, max_position_embeddings=64)
TASK_MODELS = {
    "classification": lambda enc: keras_bert.build_classifier(
        enc, 2, task_config={"seq_length": 32, "labels": ["negative", "positive"], "text_a": "sentence",
                             "label": "label"}),
    "token_classification": lambda enc: keras_bert.build_token_classifier(
        enc, 3, task_config={"seq_length": 32, "labels": ["O", "B-PER", "I-PER"]}),
    "squad": lambda enc: keras_bert.build_span_labeler(
        enc, task_config={"seq_length": 48, "doc_stride": 16, "max_query_length": 12,
                          "max_answer_length": 10, "version_2_with_negative": True}),
}
SIGNATURE = {"classification": "classify", "token_classification": "entities", "squad": "answer"}


def python(code, cwd):
    """Runs `code` in a fresh Python process; returns its stdout (fails the test on an error)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    env.pop("KERAS_BERT_LAZY_IMPORT", None)  # a user's shell: import keras_bert registers the classes
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[:2000] + "\n...\n" + result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="module")
def saved_models(tmp_path_factory, minilm_dir):
    """`{task: path of a model.keras alone in its folder}`, tiny models with MiniLM's text contract."""
    text_config = keras_bert.TextConfig.from_dir(minilm_dir).replace(max_seq_length=32)
    paths = {}
    for task, build in TASK_MODELS.items():
        encoder = keras_bert.build_encoder(TINY)
        encoder.text_config = text_config
        model = build(encoder)
        folder = tmp_path_factory.mktemp(task)
        model.save(folder / "model.keras")
        np.save(folder.parent / f"{task}_weights.npy", model.get_weights()[-1])
        paths[task] = str(folder / "model.keras")
    return paths


@pytest.fixture(scope="module")
def loaded(saved_models):
    """`{task: [load_model(compile=True), load_model(compile=False), load_checkpoint]}`: what one fresh process
    (a user's `import keras, keras_bert`, from the folder of the first model.keras) sees of each model.keras
    (one process for the three: each costs ~10 CPU-s, most of it importing TensorFlow and Keras)."""
    out = python(f"""
import json, keras, keras_bert
import numpy as np
for task, path in {saved_models!r}.items():
    for compile in (True, False):
        model = keras.saving.load_model(path, compile=compile)
        tokenizer = model.text_config.tokenizer()
        print(task, json.dumps({{"class": type(model).__name__, "task": model.task, "task_config": model.task_config,
                                "lower_case": model.text_config.lower_case, "vocab": tokenizer.vocab_size,
                                "max_seq_length": model.text_config.max_seq_length,
                                "encoder": type(model.encoder).__name__}}))
    checkpoint = keras_bert.load_checkpoint(path)  # what the file holds, as a Hugging Face head folder
    encoder = keras_bert.load_checkpoint(path, model="encoder")
    print(task, json.dumps({{"loaded": type(checkpoint).__name__, "task": checkpoint.task,
                            "task_config": checkpoint.task_config, "encoder": type(encoder).__name__,
                            "hidden": encoder.config.hidden_size, "vocab": checkpoint.text_config.tokenizer().vocab_size,
                            "same_weights": all(np.array_equal(a, b) for a, b in zip(
                                checkpoint.get_weights(), keras.saving.load_model(path).get_weights()))}}))
""", os.path.dirname(next(iter(saved_models.values()))))
    lines = {}
    for line in out.strip().splitlines():
        task, _, value = line.partition(" ")
        if task in TASK_MODELS:
            lines.setdefault(task, []).append(json.loads(value))
    return lines


@pytest.mark.parametrize("task", list(TASK_MODELS))
def test_keras_load_model_after_a_plain_import_gives_the_whole_model(saved_models, loaded, task):
    path = saved_models[task]
    assert os.listdir(os.path.dirname(path)) == ["model.keras"]
    *models, checkpoint = loaded[task]
    for model in models:
        assert model["class"] == "BertTaskModel" and model["task"] == task
        assert model["task_config"] == TASK_MODELS[task](keras_bert.build_encoder(TINY)).task_config
        assert model["lower_case"] is True and model["vocab"] == 30522 and model["max_seq_length"] == 32
        assert model["encoder"] == "BertEncoder"
    assert len(models) == 2 and checkpoint == {
        "loaded": "BertTaskModel", "task": task, "task_config": models[0]["task_config"], "encoder": "BertEncoder",
        "hidden": 16, "vocab": 30522, "same_weights": True}


@pytest.mark.slow
@pytest.mark.parametrize("task", ["squad"])  # a classifier's model.keras: the journeys; a token classifier's
def test_export_then_serve_raw_text_in_fresh_processes(saved_models, task, tmp_path):  # (and SQuAD's): test_readme
    """`tools/export.py model.keras` alone: the export checks each signature from raw text in a fresh process
    with keras and keras_bert blocked from importing (`export/verify_worker.py`); its rows name every output.
    The entities rows of a token classifier's export (tools/finetune.py's model.keras): tests/test_readme.py."""
    result = run_tool("export", saved_models[task], "--name", task, "--formats", "savedmodel",
                      "--base_dir", tmp_path / "savedmodels")
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"Model: {task}" in result.stdout and "All exports match the Keras model." in result.stdout
    assert (tmp_path / "savedmodels" / task / "1" / "saved_model.pb").exists()
    name = SIGNATURE[task]
    served = {row[2] for row in (line.split() for line in result.stdout.splitlines())
              if row[:2] == ["savedmodel", name] and row[-1] == "ok"}
    assert served == {"entities": {"end_char", "entity_label", "entity_text", "num_entities", "score", "start_char"},
                      "answer": {"answer_text", "end_char", "null_score", "score", "start_char"}}[name], \
        result.stdout[-3000:]


@pytest.mark.slow
def test_convert_a_fine_tuned_model_to_hugging_face(saved_models, tmp_path):
    output = tmp_path / "hf"
    result = run_tool("convert_checkpoint", "--input", saved_models["classification"], "--output", output,
                      "--format", "huggingface")
    assert result.returncode == 0, result.stderr[-3000:]
    assert {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"} <= set(os.listdir(output))
    out = python(f"""
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained({str(output)!r})
print(tokenizer("Hello world")["input_ids"], tokenizer.model_max_length)
""", tmp_path)
    assert out.strip().splitlines()[-1] == "[101, 7592, 2088, 102] 32"


def test_an_old_style_model_without_a_task_is_refused_by_export(tmp_path, minilm_dir):
    import keras  # pylint: disable=import-outside-toplevel

    encoder = keras_bert.build_encoder(TINY)
    inputs = {n: keras.Input((None,), dtype="int32", name=n) for n in ("input_word_ids", "input_mask",
                                                                        "input_type_ids")}
    keras.Model(inputs, keras.layers.Dense(2)(encoder(inputs)["pooled_output"])).save(tmp_path / "bare.keras")
    result = run_tool("export", tmp_path / "bare.keras", "--vocab", os.path.join(minilm_dir, "vocab.txt"),
                      "--formats", "savedmodel", "--base_dir", tmp_path / "out")
    assert result.returncode == 2
    assert "does not say what it is" in result.stderr and "Traceback" not in result.stderr
