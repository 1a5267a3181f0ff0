"""Bad input to the Python API: one row per case, each refused with one line naming the argument,
file or value (docs/DESIGN.md, principle 4)."""

import bz2
import functools
import gzip
import os
import zipfile

import pytest

from tests.reliability.conftest import FIXTURES, assert_api_error, real_vocab_file, write_tiny_checkpoint


def tiny_config(**overrides):
    import keras_bert

    return keras_bert.BertConfig(**dict(dict(vocab_size=1000, hidden_size=16, num_layers=1, num_heads=2,
                                             intermediate_size=32, max_position_embeddings=64), **overrides))


def _gz(tmp):
    path = tmp / "corpus.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("to be or not to be .\n" * 50)
    return str(path)


def _bz2(tmp):
    path = tmp / "corpus.txt.bz2"
    path.write_bytes(bz2.compress(b"to be or not to be .\n" * 50))
    return str(path)


def _zip(tmp):
    path = tmp / "corpus.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "to be .\n")
    return str(path)


def _binary(tmp):
    path = tmp / "weights.bin"
    path.write_bytes(bytes(range(256)) * 8)
    return str(path)


def _latin1(tmp):
    path = tmp / "latin1.txt"
    path.write_bytes("café à la crème brûlée, déjà vu.\n".encode("latin-1") * 40)
    return str(path)


def _a_file(tmp):
    path = tmp / "a_file"
    path.write_text("x", encoding="utf-8")
    return str(path)


def _text(tmp, lines, name="text.txt"):
    path = tmp / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _csv(tmp, rows, name="train.csv"):
    return _text(tmp, ["sentence,label"] + rows, name)


def api(module, function, *args, **kwargs):
    """A row's call: `module.function(*args, **kwargs)`; an arg that is a function of tmp_path is called."""
    def call(tmp):
        import importlib

        values = [a(tmp) if callable(a) else a for a in args]
        return getattr(importlib.import_module(module), function)(*values, **kwargs)
    return call


def optimizer(**kwargs):
    return api("keras_bert.training", "create_optimizer", **kwargs)


def schedule(*args, **kwargs):
    return api("keras_bert.training", "bert_schedule", *args, **kwargs)


def text_file(make):
    return api("keras_bert.text.text_files", "check_text_file", make)


def resolve(make):
    return api("keras_bert.data.documents", "resolve_files", make)


def vocab(make, size=200):
    return api("keras_bert.text", "build_vocab", make, size)


def fill(texts, model="pretrainer"):
    def call(tmp):
        import keras_bert

        build = keras_bert.build_pretrainer if model == "pretrainer" else keras_bert.build_encoder
        return keras_bert.fill_mask(build(tiny_config()), _tokenizer(), texts)
    return call


@functools.lru_cache(maxsize=1)
def _tokenizer():
    import keras_bert

    return keras_bert.Tokenizer(real_vocab_file())


def finetune(task="classification", train=None, **kwargs):
    def call(tmp):
        from keras_bert import finetune_task
        from keras_bert.training import RunConfig

        checkpoint = kwargs.pop("checkpoint", None) or write_tiny_checkpoint(str(tmp))
        path = train(tmp) if callable(train) else train or os.path.join(FIXTURES, "sentiment.csv")
        return finetune_task(task, checkpoint, path, epochs=1, batch_size=4, seq_length=16,
                             run=RunConfig(strategy="default", verbose=0), **kwargs)
    return call


def classification(path_or_make, **kwargs):
    def call(tmp):
        from keras_bert import Preprocessor
        from keras_bert.data import classification_dataset

        path = path_or_make(tmp) if callable(path_or_make) else path_or_make
        return classification_dataset(path, Preprocessor(_tokenizer(), 16), **kwargs)
    return call


def pretrain(output_dir=None, **kwargs):
    def call(tmp):
        from keras_bert import pretraining_input, run_pretraining
        from keras_bert.training import RunConfig

        files = _text(tmp, ["to be or not to be .", "that is the question .", "",
                            "a horse , a horse .", "my kingdom for a horse ."] * 3)
        directory = output_dir(tmp) if output_dir else str(tmp / "run")
        run_fields = {f: kwargs.pop(f) for f in list(kwargs) if f in RunConfig.__dataclass_fields__}
        run = RunConfig(**dict(dict(output_dir=directory, strategy="default", jit_compile="off",
                                    verbose=0), **run_fields))
        options = dict(dict(global_batch_size=2, train_steps=2, steps_per_epoch=1, tensorboard=False,
                            plot=False), **kwargs)
        return run_pretraining(pretraining_input(files, _tokenizer(), seq_length=16),
                               tiny_config(vocab_size=30522), run=run, **options)
    return call


def save_into(path_of, format="keras"):
    def call(tmp):
        import keras_bert

        return keras_bert.save_checkpoint(keras_bert.build_encoder(tiny_config()), path_of(tmp), format=format)
    return call


def export_fill_mask(which):
    def call(tmp):
        import keras_bert
        from keras_bert.export import fill_mask_client

        if which == "query":
            return fill_mask_client.query_fill_mask(str(tmp / "no_model"), [])
        return fill_mask_client.export_and_query_fill_mask(keras_bert.build_encoder(tiny_config()), _tokenizer(),
                                                    "demo", base_dir=str(tmp))
    return call


def memory(batch_size):
    return api("keras_bert.training", "check_batch_memory", lambda tmp: tiny_config(), batch_size, 64)


def make_dir_case(path_of):
    return api("keras_bert.errors", "make_dir", path_of, "--output_dir")


def other(function_name, *args):
    return api("keras_bert", function_name, *args)


def _squad(tmp, **qa_changes):
    import json

    qa = dict({"id": "q1", "question": "who?", "answers": [{"text": "king", "answer_start": 4}]}, **qa_changes)
    qa = {k: v for k, v in qa.items() if v is not None}
    path = tmp / "squad.json"
    path.write_text(json.dumps({"data": [{"paragraphs": [{"context": "the king is dead", "qas": [qa]}]}]}))
    return str(path)


def squad(**qa_changes):
    return api("keras_bert.data.squad", "squad_examples", lambda tmp: _squad(tmp, **qa_changes))


def _keras_hub_preset(tmp, damage):
    """A tiny keras-hub preset (save_checkpoint format="keras_hub"), then `damage(folder)`."""
    import keras_bert

    folder = str(tmp / "preset")
    keras_bert.save_checkpoint(keras_bert.build_encoder(tiny_config(hidden_act="gelu_tanh")), folder,
                               format="keras_hub")
    damage(folder)
    return folder


def _truncate_weights(folder):
    path = os.path.join(folder, "model.weights.h5")
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def _other_hidden_size(folder):
    import json

    path = os.path.join(folder, "config.json")
    with open(path, encoding="utf-8") as f:
        preset = json.load(f)
    preset["config"]["hidden_dim"] = 32
    with open(path, "w", encoding="utf-8") as f:
        json.dump(preset, f)


def keras_hub(damage):
    return api("keras_bert", "load_checkpoint", lambda tmp: _keras_hub_preset(tmp, damage))


def _hf_tokenizer_folder(tmp, **tokenizer_config):
    import json
    import shutil

    shutil.copy(real_vocab_file(), tmp / "vocab.txt")
    (tmp / "tokenizer_config.json").write_text(json.dumps(dict({"do_lower_case": True}, **tokenizer_config)))
    return str(tmp)


def text_contract(**tokenizer_config):
    return api("keras_bert.text.text_config", "find_text_config",
               lambda tmp: _hf_tokenizer_folder(tmp, **tokenizer_config))


def _symlink_loop(tmp):
    os.symlink(tmp / "b", tmp / "a")
    os.symlink(tmp / "a", tmp / "b")
    return str(tmp / "a" / "run")


# id, call(tmp_path), expected exception, fragments of the one-line message
CASES = [
    ("SQuAD question without id", squad(id=None), ValueError, ["squad.json", "qas[0]", "has no 'id'"]),
    ("SQuAD question is a number", squad(question=42), ValueError,
     ["squad.json", "qas[0].question", "a number 42", "expected text"]),
    ("SQuAD answer_start is text", squad(answers=[{"text": "king", "answer_start": "four"}]), ValueError,
     ["squad.json", "answers[0].answer_start", "'four'"]),
    ("JSONL number where text belongs",
     classification(lambda tmp: _text(tmp, ['{"sentence": "good", "label": "pos"}',
                                            '{"sentence": 42, "label": "neg"}'], "train.jsonl")),
     ValueError, ["Line 2", "train.jsonl", "'sentence'", "int 42", "expected text"]),
    ("CSV row without its label", classification(lambda tmp: _csv(tmp, ["good film,pos", "bad film"])),
     ValueError, ["Row 2 (line 3)", "train.csv", "['label']"]),
    ("keras-hub weights truncated", keras_hub(_truncate_weights), ValueError,
     ["model.weights.h5", "truncated or damaged"]),
    ("keras-hub config disagrees with its weights", keras_hub(_other_hidden_size), ValueError,
     ["config.json", "hidden_dim=32", "holds 16"]),
    ("tokenizer_config max_length not a number", text_contract(model_max_length="lots"), ValueError,
     ["tokenizer_config.json", "model_max_length", "'lots'"]),
    ("tokenizer_config do_lower_case not true/false", text_contract(do_lower_case="yes"), ValueError,
     ["tokenizer_config.json", "do_lower_case", "'yes'"]),
    ("output folder through a symlink loop", make_dir_case(_symlink_loop), ValueError,
     ["--output_dir", "symlink loop"]),
    ("accumulation does not divide the batch",
     api("keras_bert.training.run_loop", "check_batch_size", 30,
         lambda tmp: __import__("tensorflow").distribute.get_strategy(), 4),
     ValueError, ["global_batch_size=30", "4 micro-batches", "--batch_size 28 with --gradient_accumulation_steps 4"]),
    ("negative learning rate", optimizer(learning_rate=-1e-4), ValueError, ["learning_rate", "-0.0001"]),
    ("zero learning rate", optimizer(learning_rate=0.0), ValueError, ["learning_rate", "> 0"]),
    ("nan learning rate", optimizer(learning_rate=float("nan")), ValueError, ["learning_rate", "nan"]),
    ("negative weight decay", optimizer(weight_decay=-0.1), ValueError, ["weight_decay", "-0.1"]),
    ("unknown optimizer", optimizer(optimizer="sgd"), ValueError, ["optimizer", "'sgd'"]),
    ("warmup without total steps", optimizer(warmup_steps=5), ValueError, ["warmup_steps", "total_steps"]),
    ("schedule of zero steps", schedule(1e-4, 0), ValueError, ["total_steps", "0"]),
    ("warmup beyond the schedule", schedule(1e-4, 10, 20), ValueError, ["warmup_steps=20"]),
    ("gzip corpus", text_file(_gz), ValueError, ["corpus.txt.gz", "gzip", "gunzip"]),
    ("bzip2 corpus", text_file(_bz2), ValueError, ["corpus.txt.bz2", "bzip2"]),
    ("zip corpus", text_file(_zip), ValueError, ["corpus.zip", "zip"]),
    ("binary corpus", text_file(_binary), ValueError, ["weights.bin", "NUL byte"]),
    ("latin-1 corpus", text_file(_latin1), ValueError, ["latin1.txt", "not UTF-8"]),
    ("corpus glob matches nothing", resolve(lambda tmp: str(tmp / "*.nothing")), ValueError,
     ["*.nothing", "does not exist"]),
    ("corpus is a folder", resolve(lambda tmp: str(tmp)), ValueError, ["is a directory", "*.txt"]),
    ("gzip corpus to the pipeline", resolve(_gz), ValueError, ["corpus.txt.gz", "gzip"]),
    ("build_vocab on gzip", vocab(_gz), ValueError, ["corpus.txt.gz", "gzip"]),
    ("build_vocab on a missing file", vocab(lambda tmp: str(tmp / "missing.txt")), ValueError,
     ["missing.txt", "does not exist"]),
    ("build_vocab size exceeded", vocab(lambda tmp: _text(tmp, ["the quick brown fox jumps over the lazy dog ."] * 20), 20),
     ValueError, ["--vocab_size", "20"]),
    ("build_vocab size below the reserved", vocab(lambda tmp: _text(tmp, ["a b"]), 3), ValueError, ["vocab_size=3"]),
    ("output folder is a file", make_dir_case(_a_file), ValueError, ["--output_dir", "a_file", "is a file"]),
    ("output folder under a file", make_dir_case(lambda tmp: os.path.join(_a_file(tmp), "run")), ValueError,
     ["--output_dir", "is a file"]),
    ("checkpoint folder is a file", save_into(_a_file), ValueError, ["a_file", "is a file"]),
    ("unknown checkpoint format", save_into(lambda tmp: str(tmp / "x"), "onnx"), ValueError, ["'onnx'"]),
    ("fill_mask without texts", fill([]), ValueError, ["fill_mask", "no texts"]),
    ("fill_mask on an encoder", fill(["a [MASK] ."], model="encoder"), ValueError,
     ["BertPretrainer", "bert_encoder", "model='pretrainer'"]),
    ("fill_mask without a mask", fill(["no mask here"]), ValueError, ["[MASK]", "'no mask here'"]),
    ("batch beyond memory", memory(10 ** 8), ValueError, ["--batch_size 100000000", "GiB", "available"]),
    ("classification: no such column", classification(os.path.join(FIXTURES, "sentiment.csv"), label="stars"),
     ValueError, ["'stars'", "--label", "sentiment.csv"]),
    ("classification: label not in --labels",
     classification(os.path.join(FIXTURES, "sentiment.csv"), labels=["positive"]), ValueError,
     ["'negative'", "--labels", "sentiment.csv"]),
    ("classification: empty file", classification(lambda tmp: _text(tmp, ["sentence,label"], "empty.csv")),
     ValueError, ["empty.csv", "no examples"]),
    ("classification: missing file", classification(lambda tmp: str(tmp / "nope.csv")), FileNotFoundError,
     ["nope.csv"]),
    ("finetune: --text_b with classification", finetune(text_b="hypothesis"), ValueError,
     ["text_b", "--text_b hypothesis", "does not apply", "pair_classification"]),
    ("finetune: pair task without text_b", finetune("pair_classification"), ValueError, ["text_b"]),
    ("finetune: unknown task", finetune("summarization"), ValueError, ["'summarization'"]),
    ("finetune: single-class training set", finetune(train=lambda tmp: _csv(tmp, ["good film,pos", "great,pos"])),
     ValueError, ["train.csv", "'pos'", "two classes"]),
    ("finetune: single class within --labels",
     finetune(train=lambda tmp: _csv(tmp, ["good film,pos", "great,pos"]), labels=["neg", "pos"]),
     ValueError, ["'pos'", "two classes"]),
    ("finetune: missing checkpoint", finetune(checkpoint="/nonexistent/ckpt"), FileNotFoundError,
     ["/nonexistent/ckpt"]),
    ("pretraining output_dir is a file", pretrain(output_dir=_a_file), ValueError, ["--output_dir", "a_file"]),
    ("pretraining batch of zero", pretrain(global_batch_size=0), ValueError, ["global_batch_size", "0"]),
    ("pretraining input_mode", pretrain(input_mode="fast"), ValueError, ["input_mode='fast'"]),
    ("pretraining steps per execution", pretrain(steps_per_execution=3), ValueError,
     ["--train_steps", "--steps_per_execution"]),
    ("pretraining keeps no checkpoint", pretrain(keep_checkpoints=0), ValueError, ["--keep_checkpoints", "0"]),
    ("exported fill-mask without texts", export_fill_mask("query"), ValueError, ["[MASK]", "[]"]),
    ("exported fill-mask of an encoder", export_fill_mask("export"), ValueError, ["BertPretrainer", "bert_encoder"]),
    ("pretraining negative learning rate", pretrain(learning_rate=-1.0), ValueError, ["learning_rate", "-1.0"]),
    ("unknown strategy", other("get_strategy", "bogus"), ValueError, ["'bogus'"]),
    ("unknown mixed precision", other("set_mixed_precision", "fp8"), ValueError, ["'fp8'"]),
    ("unknown preset", other("build_encoder", "bert_huge"), ValueError, ["'bert_huge'"]),
    ("zero classes", lambda tmp: __import__("keras_bert").build_classifier(tiny_config(), 0), ValueError,
     ["classifier", "0"]),
    ("missing vocab file", lambda tmp: __import__("keras_bert").Tokenizer(str(tmp / "vocab.txt")), ValueError,
     ["vocab.txt", "does not exist"]),
    ("missing config file", lambda tmp: __import__("keras_bert").BertConfig.from_json(str(tmp / "c.json")),
     FileNotFoundError, ["c.json"]),
    ("heads do not divide hidden", lambda tmp: tiny_config(hidden_size=10, num_heads=3), ValueError,
     ["hidden_size (10)", "num_heads (3)"]),
]


@pytest.mark.parametrize("call, error, fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_in_one_line(call, error, fragments, tmp_path):
    assert_api_error(lambda: call(tmp_path), error, *fragments)


def test_text_contract_reads_a_max_length_written_as_text(tmp_path):
    from keras_bert.text.text_config import find_text_config

    assert find_text_config(_hf_tokenizer_folder(tmp_path, model_max_length="512")).max_seq_length == 512


def test_pretrainer_top_k_tokens_of_a_vocab_with_a_bom(tmp_path):
    """The serving table of token strings comes from the tokenizer's list: no BOM on token 0."""
    import keras_bert
    from keras_bert.export.serving_module import ServingModule

    with open(real_vocab_file(), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:1000]
    (tmp_path / "vocab.txt").write_text("\ufeff" + "\n".join(vocab) + "\n", encoding="utf-8")
    module = ServingModule(keras_bert.build_pretrainer(tiny_config()), keras_bert.Tokenizer(str(tmp_path / "vocab.txt")),
                           seq_length=16)
    tokens = module.serving.vocab_table.lookup(__import__("tensorflow").constant([0, 1, 999], "int64")).numpy()
    assert [t.decode() for t in tokens] == ["[PAD]", vocab[1], vocab[999]]


def test_saving_over_another_checkpoint_replaces_it(tmp_path):
    """A folder that held a Hugging Face checkpoint of another model loads the new one after saving."""
    import keras_bert

    folder = write_tiny_checkpoint(str(tmp_path), hidden_size=8)
    keras_bert.save_checkpoint(keras_bert.load_checkpoint(folder), folder, format="huggingface")
    assert keras_bert.load_checkpoint(folder).config.hidden_size == 8
    keras_bert.save_checkpoint(keras_bert.build_pretrainer(tiny_config(num_layers=2)), folder, format="google")
    loaded = keras_bert.load_checkpoint(folder, model="auto")
    assert (loaded.config.num_layers, loaded.config.hidden_size) == (2, 16)
    assert sorted(os.listdir(folder)) == ["bert_config.json", "bert_model.ckpt.data-00000-of-00001",
                                          "bert_model.ckpt.index", "checkpoint"]
