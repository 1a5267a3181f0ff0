"""Released checkpoints by name, offline on the real huggingface_hub client: seeded `save_pretrained` folders in a
Hub cache (tests/checkpoints/hub_cache.py), read with HF_HUB_OFFLINE=1 as a user's second run reads them, by
the API and by every tool in fresh processes; the refusals, one line each."""

import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile

import pytest

from keras_bert.checkpoints.hub_handle import RELEASES, resolve
from tests.checkpoints.conftest import TINY, randomize, write_vocab
from tests.checkpoints.hub_cache import add_repo, sentence_transformers_folder
from tests.conftest import ROOT, run_tool

transformers = pytest.importorskip("transformers")
BERT = "google/bert_uncased_L-2_H-128_A-2"  # RELEASES["bert_tiny_uncased"]: a seeded tiny BERT stands in
KAGGLE = "kaggle://keras/bert/keras/bert_tiny_test/1"
SENTIMENT = os.path.join(ROOT, "tests", "data", "fixtures", "sentiment.csv")


@pytest.fixture(scope="module")
def hub(tmp_path_factory, hf_pretraining_dir, hf_model_dir):
    """(environment of an offline user with the cache, {name: commit})."""
    from tests.models.modernbert.tiny_modernbert import save_seeded

    root = tmp_path_factory.mktemp("hub")
    cache = str(root / "cache")
    commits = {"main": add_repo(cache, BERT, hf_pretraining_dir), "v1": add_repo(cache, BERT, hf_model_dir, ("v1",))}
    sharded = str(root / "sharded")
    randomize(transformers.BertModel(transformers.BertConfig(**TINY)), seed=2).save_pretrained(
        sharded, max_shard_size="20KB")
    transformers.BertTokenizerFast(vocab=write_vocab(sharded)).save_pretrained(sharded)
    add_repo(cache, "test-org/bert-sharded", sharded)
    roberta = transformers.RobertaConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                         intermediate_size=32, max_position_embeddings=34, type_vocab_size=1)
    transformers.RobertaModel(roberta).save_pretrained(root / "roberta")
    add_repo(cache, "test-org/roberta-tiny", str(root / "roberta"))
    add_repo(cache, RELEASES["modernbert_base"], save_seeded(str(root / "modernbert"), "ModernBertModel"))
    add_repo(cache, RELEASES["all_minilm_l6_v2"], sentence_transformers_folder(hf_model_dir, str(root / "st")))
    for name, files in {"bin-only": {"config.json": b'{"model_type": "bert"}', "pytorch_model.bin": b"PK\x03\x04"},
                        "gguf": {"README.md": b"# q4", "model-Q4_K_M.gguf": b"GGUF\x03\x00"},
                        "llama": {"config.json": b'{"model_type": "llama"}', "model.safetensors": b"\0" * 16},
                        }.items():
        os.makedirs(root / name)
        for file, content in files.items():
            (root / name / file).write_bytes(content)
        add_repo(cache, f"test-org/{name}", str(root / name))
    interrupted = add_repo(cache, "test-org/interrupted", hf_model_dir)
    os.remove(os.path.join(cache, "models--test-org--interrupted", "snapshots", interrupted, "model.safetensors"))
    preset = _keras_hub_preset(hf_model_dir, str(root / "preset"))
    add_repo(cache, "test-org/keras-hub-bert", preset)
    kaggle = str(root / "kaggle")
    _add_kaggle_model(kaggle, KAGGLE[len("kaggle://"):], preset)
    return {"HF_HUB_CACHE": cache, "HF_HUB_OFFLINE": "1", "HF_TOKEN": None, "KAGGLEHUB_CACHE": kaggle}, commits


def _keras_hub_preset(hf_folder, folder):
    """A keras-hub BertBackbone preset (written by keras-hub's save_to_preset) of a seeded BERT."""
    import keras_bert

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the erf GELU notice
        keras_bert.save_checkpoint(keras_bert.load_checkpoint(hf_folder, model="encoder"), folder, format="keras_hub")
    return folder


def _add_kaggle_model(cache, handle, folder):
    """`folder`'s files in kagglehub's cache (KAGGLEHUB_CACHE) as kagglehub stores a downloaded model version."""
    os.environ["KAGGLEHUB_CACHE"], previous = cache, os.environ.get("KAGGLEHUB_CACHE")
    try:
        from kagglehub.cache import Cache
        from kagglehub.handle import parse_model_handle

        model, store = parse_model_handle(handle), Cache()
        for name in (os.path.relpath(os.path.join(r, n), folder) for r, _, ns in os.walk(folder) for n in ns):
            os.makedirs(os.path.dirname(store.get_path(model, name)), exist_ok=True)
            shutil.copyfile(os.path.join(folder, name), store.get_path(model, name))
            store.mark_as_complete(model, name)
    finally:
        os.environ.pop("KAGGLEHUB_CACHE") if previous is None else os.environ.update(KAGGLEHUB_CACHE=previous)


# Every handle kind through the API and the refusals, in one fresh process: a JSON line per handle.
_WORKER = """
import json, sys, warnings
warnings.simplefilter("ignore")
import keras_bert
for handle in sys.argv[1:]:
    try:
        model = keras_bert.load_checkpoint(handle)
        text = model.encoder.text_config if hasattr(model, "encoder") else model.text_config
        print(json.dumps({"handle": handle, "model": type(model).__name__, "task": getattr(model, "task", None),
                          "origin": text.origin if text else None}))
    except Exception as error:
        print(json.dumps({"handle": handle, "error": f"{type(error).__name__}: {error}"}))
"""


def test_handles_load_offline_and_refusals_are_one_line(hub):
    env, commits = hub
    handles = [f"hf://{BERT}", f"hf://{BERT}@v1", f"hf://{BERT}@{commits['v1']}", "bert_tiny_uncased",
               "hf://test-org/bert-sharded", "all-MiniLM-L6-v2", "hf://test-org/roberta-tiny", "modernbert_base",
               "hf://test-org/keras-hub-bert", KAGGLE,
               "hf://datasets/test-org/data", "hf://test-org/missing", f"hf://{BERT}@v9", "hf://test-org/bin-only",
               "hf://test-org/gguf", "hf://test-org/llama", "hf://test-org/interrupted", "hf://not a handle"]
    environment = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3",
                       **{k: v for k, v in env.items() if v is not None})
    environment.pop("HF_TOKEN", None)
    result = subprocess.run([sys.executable, "-c", _WORKER, *handles], env=environment, capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    rows = {row["handle"]: row for row in map(json.loads, result.stdout.splitlines())}
    assert len(rows) == len(handles), result.stderr[-3000:]
    print("\n".join(f"{h}: {rows[h].get('error') or rows[h]}" for h in handles))  # the closing note's table
    main, v1 = f"hf://{BERT}@{commits['main']}", f"hf://{BERT}@{commits['v1']}"
    assert rows[f"hf://{BERT}"] == dict(handle=f"hf://{BERT}", model="BertEncoder", task=None, origin=main)
    assert rows[f"hf://{BERT}@v1"]["origin"] == rows[v1]["origin"] == v1 != main
    assert rows["bert_tiny_uncased"]["origin"] == main
    assert rows["hf://test-org/bert-sharded"]["model"] == "BertEncoder"
    assert rows["all-MiniLM-L6-v2"]["task"] == "embedding"
    assert rows["all-MiniLM-L6-v2"]["origin"].startswith("hf://sentence-transformers/all-MiniLM-L6-v2@")
    assert rows["hf://test-org/roberta-tiny"]["model"] == "BertEncoder"
    assert rows["modernbert_base"]["model"] == "ModernBertEncoder"
    assert rows["hf://test-org/keras-hub-bert"]["model"] == rows[KAGGLE]["model"] == "BertEncoder"
    assert rows[KAGGLE]["origin"] == KAGGLE
    errors = {h: rows[h].get("error", "") for h in handles[10:]}
    assert all(e.startswith(("HubError: ", "ValueError: ")) and "\n" not in e for e in errors.values()), errors
    expected = {"hf://datasets/test-org/data": "is a dataset repo",
                "hf://test-org/missing": "HF_HUB_OFFLINE is set and the Hub cache",
                f"hf://{BERT}@v9": "holds no copy of revision 'v9'",
                "hf://test-org/bin-only": "has only pytorch_model.bin, a pickle",
                "hf://test-org/gguf": "holds GGUF files",
                "hf://test-org/llama": "describes a 'llama' model; keras_bert reads model_type",
                "hf://test-org/interrupted": "is incomplete (an interrupted download)",
                "hf://not a handle": "is not a Hugging Face handle"}
    assert {h: m in errors[h] for h, m in expected.items()} == {h: True for h in expected}, errors


def test_tools_take_handles_and_save_their_origin(hub, tmp_path):
    """finetune from a release name (its model.keras records the commit); export passes a handle to the loader,
    whose refusal it prints in one line (convert_checkpoint takes --input through the same read_checkpoint)."""
    env, commits = hub
    origin = f"hf://{BERT}@{commits['main']}"
    tuned = run_tool("finetune", "classification", "--checkpoint", "bert_tiny_uncased", "--train_file", SENTIMENT,
                     "--output_dir", tmp_path / "ft", "--epochs", "1", "--batch_size", "4", "--seq_length", "16",
                     "--strategy", "default", "--quiet", env=env, timeout=300)
    assert tuned.returncode == 0, tuned.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "ft" / "model.keras") as saved:  # the encoder's text contract, in the model
        assert f'"origin": "{origin}"' in saved.read("config.json").decode()
    refused = run_tool("export", "hf://test-org/gguf", "--base_dir", tmp_path / "saved", env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "GGUF" in refused.stderr, refused.stderr


def test_a_local_path_is_itself_and_names_resolve_through_one_table(tmp_path):
    assert resolve(str(tmp_path)) == (str(tmp_path), None)
    assert RELEASES["bert_uncased_L-12_H-768_A-12"] == "google/bert_uncased_L-12_H-768_A-12"
    assert len([n for n in RELEASES if n.startswith("bert_uncased_L-")]) == 24
