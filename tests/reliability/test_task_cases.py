"""Issue 30, the tasks side: bad labels, scores and degenerate sets in the newest tasks (multi-label,
regression, embeddings, token classification), each refused in one line naming the file, line, flag or
label (the one label-name rule: keras_bert/text/label_names.py). API rows read with the task's own reader;
tool rows run `python tools/<tool>.py` in a fresh process, as a user does."""

import json
import os

import pytest

from tests.conftest import run_tool
from tests.reliability.conftest import assert_api_error, assert_one_line_error


def _file(tmp, name, text):
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _jsonl(tmp, name, rows):
    return _file(tmp, name, "".join(json.dumps(row) + "\n" for row in rows))


TOPICS_JSONL = [{"sentence": "goal match", "topics": ["sports|arts"]}, {"sentence": "vote", "topics": ["politics"]}]
TOPICS_CSV = "sentence,topics\ngoal match,sports\nvote,politics\nsong,music|sports\n"
PAIRS_CSV = "anchor,positive\na cat,a kitten\na dog,a puppy\nthe sun,the moon\nred,blue\n"
SENTIMENT_CSV = "sentence,label\na fine film,pos\na dull film,neg\n"
NAN_SCORES_CSV = "anchor,positive,score\na cat,a kitten,0.9\na dog,a puppy,nan\n"


def _read(task, path_of, training=True, seq_length=16, **options):
    """A call reading `path_of(tmp)` with task `task` (a name in TASKS) and `options`."""
    def call(tmp, tokenizer):
        from keras_bert.tasks import TASKS

        extra = {"pooling": "mean", "normalize": True} if task == "embedding" else {}
        runner = TASKS[task](tokenizer, seq_length, 2, **extra, **options)

        def read():  # as finetune_task does: the training file fits the labels, then is read
            if training:
                runner.fit_options(path_of(tmp))
            return runner.read(path_of(tmp), training=training)
        return read
    return call


def _options(task, **options):
    def call(tmp, tokenizer):
        from keras_bert.tasks import TASKS

        return lambda: TASKS[task](tokenizer, 16, 2, **options)
    return call


# id, call(tmp_path, tokenizer) -> the refused call, fragments of the one-line ValueError
API_CASES = [
    # §1: one rule for a multi-label name holding the separator: JSONL list element, CSV and --labels alike.
    ("multi-label JSONL element holds the separator",
     _read("multi_label", lambda tmp: _jsonl(tmp, "t.jsonl", TOPICS_JSONL), label="topics"),
     ["Line 1", "t.jsonl", "'sports|arts'", "must not contain the separator '|'"]),
    ("multi-label --labels name holds the separator", _options("multi_label", labels=["sports|arts", "x"]),
     ["--labels", "'sports|arts'", "must not contain the separator '|'"]),
    # §2: a label that cannot round-trip (labels.txt is one name a line), at reading and at --labels.
    ("classification label with a newline",
     _read("classification", lambda tmp: _file(tmp, "n.csv", 'sentence,label\ngood,"pos\nitive"\nbad,neg\n')),
     ["n.csv", "'pos\\nitive'", "control character '\\n'"]),
    ("multi-label label with a newline",
     _read("multi_label", lambda tmp: _jsonl(tmp, "n.jsonl", [{"sentence": "a", "topics": ["x\ny"]}]),
           label="topics"), ["Line 1", "n.jsonl", "control character"]),
    ("classification --labels name with a newline", _options("classification", labels=["neg", "pos\nitive"]),
     ["--labels", "'pos\\nitive'", "control character"]),
    ("classification empty label cell",
     _read("classification", lambda tmp: _file(tmp, "e.csv", "sentence,label\ngood,\nbad,neg\nok,pos\n")),
     ["Line 2", "e.csv", "label '' is empty"]),
    ("token classification tag with a control character",
     _read("token_classification", lambda tmp: _file(tmp, "t.conll", "EU B-ORG\x07\nrejects O\n\nx O\n")),
     ["Line 1", "t.conll", "'B-ORG\\x07'", "control character"]),
    # §2: a NaN similarity score is refused when the eval file is read, naming the embedding task.
    ("embedding eval score NaN", _read("embedding", lambda tmp: _file(tmp, "dev.csv", NAN_SCORES_CSV), False),
     ["dev.csv", "line 3", "'nan'", "task 'embedding'"]),
    # §2: --labels with no names is about --labels, not a missing column.
    ("multi-label --labels with no names", _options("multi_label", labels=[]), ["--labels", "names no label"]),
    ("multi-label --labels ,", _options("multi_label", labels=[","]), ["--labels", "names no label"]),
    ("token classification --labels ''", _options("token_classification", labels=[""]),
     ["--labels", "names no label"]),
    # §1: a degenerate multi-label training set is refused, as the other tasks refuse theirs.
    ("multi-label one-row training file",
     _read("multi_label", lambda tmp: _file(tmp, "one.csv", "sentence,topics\ngoal,sports\n"), label="topics"),
     ["one.csv", "every training example (1)", "['sports']", "label sets differ"]),
    ("multi-label: no example has a label of --labels",
     _read("multi_label", lambda tmp: _file(tmp, "none.csv", "sentence,topics\na,\nb,\n"), label="topics",
           labels=["x", "y"]), ["none.csv", "label set []"]),
    # Our own: a JSON list in a classification label column became the class "['pos']".
    ("classification JSONL label is a list",
     _read("classification", lambda tmp: _jsonl(tmp, "l.jsonl", [{"sentence": "a", "label": ["pos"]},
                                                                 {"sentence": "b", "label": "neg"}])),
     ["Line 1", "l.jsonl", "['pos']", "task multi_label"]),
    ("multi-label JSONL element is a list",
     _read("multi_label", lambda tmp: _jsonl(tmp, "m.jsonl", [{"sentence": "a", "topics": [["x"]]}]),
           label="topics"), ["Line 1", "m.jsonl", "[['x']]", "JSON list of label names"]),
    # Our own: a score float32 cannot hold (or whose squared error overflows) was inf, then "diverged".
    ("regression score beyond float32",
     _read("regression", lambda tmp: _file(tmp, "big.csv", "sentence,score\na,1e39\nb,2\n"), label="score"),
     ["big.csv", "line 2", "'1e39'", "rescale the scores"]),
    ("regression score whose squared error overflows",
     _read("regression", lambda tmp: _file(tmp, "big.csv", "sentence,score\na,1\nb,3e20\n"), label="score"),
     ["big.csv", "line 3", "'3e20'"]),
    # Our own: --seq_length 2 left no piece of text ([CLS] [SEP]: trained on nothing); with --doc_stride a raw
    # TF "Integer division by zero"; a pair at --seq_length 4 dropped its second text.
    ("classification --seq_length 2",
     _read("classification", lambda tmp: _file(tmp, "s.csv", SENTIMENT_CSV), seq_length=2),
     ["seq_length=2 (--seq_length)", "no room for text", ">= 3"]),
    ("classification --seq_length 2 --doc_stride 1",
     _read("classification", lambda tmp: _file(tmp, "s.csv", SENTIMENT_CSV), seq_length=2, doc_stride=1),
     ["seq_length=2 (--seq_length)", "no room for text"]),
    ("regression pair --seq_length 4",
     _read("regression", lambda tmp: _file(tmp, "p.csv", "a,b,score\nx y,z w,1\nu,v,2\n"), text_a="a", text_b="b",
           label="score", seq_length=4), ["seq_length=4 (--seq_length)", ">= 5"]),
    ("embedding --seq_length 2", _read("embedding", lambda tmp: _file(tmp, "pairs.csv", PAIRS_CSV), seq_length=2),
     ["seq_length=2 (--seq_length)", "no room for text"]),
    # Our own: a one-tag CoNLL file was refused naming --label, a flag token_classification does not take.
    ("token classification file of one tag",
     _read("token_classification", lambda tmp: _file(tmp, "o.conll", "EU O\nrejects O\n\nx O\n")),
     ["o.conll", "every training word has the tag 'O'", "at least two tags"]),
    # Our own: --aggregate max without --doc_stride was accepted and did nothing.
    ("classification --aggregate max without --doc_stride", _options("classification", aggregate="max"),
     ["aggregate='max' (--aggregate)", "Pass --doc_stride"]),
    ("regression --aggregate max without --doc_stride", _options("regression", aggregate="max"),
     ["aggregate='max' (--aggregate)", "Pass --doc_stride"]),
    # Our own: a one-pair evaluation file scored recall@1 = MRR = 1.0 whatever the model.
    ("embedding eval file of one pair",
     _read("embedding", lambda tmp: _file(tmp, "dev.csv", "anchor,positive\na cat,a kitten\n"), False),
     ["dev.csv", "has 1 pair", "evaluation file needs at least 2 pairs"]),
    # Our own: an embedding --label naming no column of the eval file silently dropped the Spearman score.
    ("embedding --label not in the eval file",
     _read("embedding", lambda tmp: _file(tmp, "dev.csv", "anchor,positive,similarity\na,b,1\nc,d,0\n"), False,
           label="similarty"), ["'similarty' (--label)", "dev.csv", "'similarity'"]),
]


@pytest.mark.parametrize("call, fragments", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_task_refuses_bad_labels_and_scores_in_one_line(call, fragments, tmp_path, tokenizer):
    assert_api_error(call(tmp_path, tokenizer), ValueError, *fragments)


def test_label_names_are_stripped_and_kept_when_valid(tmp_path, tokenizer):
    """The rule refuses only what cannot round-trip: --labels names are stripped as file cells are."""
    from keras_bert.tasks import ClassificationTask, MultiLabelTask

    assert ClassificationTask(tokenizer, 16, 2, labels=[" pos ", "neg"]).labels == ["pos", "neg"]
    assert ClassificationTask(tokenizer, 16, 2, labels=[0, 1]).labels == [0, 1]  # numbers stay numbers
    task = MultiLabelTask(tokenizer, 16, 2, label="topics")
    task.fit_options(_file(tmp_path, "t.csv", TOPICS_CSV + "the,\n"))  # the labels are fitted explicitly
    task.read(_file(tmp_path, "t.csv", TOPICS_CSV + "the,\n"), training=True)
    assert task.labels == ["music", "politics", "sports"]


def test_embedding_fine_tune_warns_nothing(tmp_path, tokenizer):
    """Our own: every embedding fine-tune printed Keras's 'Gradients do not exist for variables
    ['pooler/dense/kernel', ...]' on stderr, --quiet too (the embedder pools token vectors, never the pooler)."""
    import warnings

    import keras

    import keras_bert
    from keras_bert.tasks import EmbeddingTask

    task = EmbeddingTask(tokenizer, 16, 2, pooling="mean", normalize=True)
    model = task.build_model(keras_bert.build_encoder(keras_bert.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
        max_position_embeddings=64)))
    model.compile(optimizer=keras.optimizers.SGD(0.01), **task.compile_kwargs())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(task.read(_file(tmp_path, "pairs.csv", PAIRS_CSV), training=True), epochs=1, verbose=0)
    assert not [w for w in caught if "Gradients do not exist" in str(w.message)], [str(w.message) for w in caught]


FINETUNE = ["--checkpoint", "{checkpoint}", "--epochs", "1", "--batch_size", "2", "--seq_length", "16",
            "--strategy", "default", "--quiet", "--output_dir", "{tmp}/run"]
TOOL_CASES = [
    ("multi_label JSONL element holds the separator",
     ["multi_label", "--train_file", "{topics_jsonl}", "--label", "topics"],
     ["Line 1", "topics.jsonl", "'sports|arts'", "must not contain the separator '|'"]),
    ("multi_label --labels ''", ["multi_label", "--train_file", "{topics_csv}", "--label", "topics", "--labels", ""],
     ["--labels", "names no label"]),
    ("multi_label one-row file", ["multi_label", "--train_file", "{one_csv}", "--label", "topics"],
     ["one.csv", "every training example (1)"]),
    ("embedding eval score NaN", ["embedding", "--train_file", "{pairs_csv}", "--eval_file", "{dev_csv}"],
     ["dev.csv", "line 3", "task 'embedding'"]),
]


@pytest.mark.parametrize("argv, fragments", [c[1:] for c in TOOL_CASES], ids=[c[0] for c in TOOL_CASES])
def test_finetune_refuses_before_training(argv, fragments, tmp_path, tiny_checkpoint):
    paths = {"topics_jsonl": _jsonl(tmp_path, "topics.jsonl", TOPICS_JSONL),
             "topics_csv": _file(tmp_path, "topics.csv", TOPICS_CSV),
             "one_csv": _file(tmp_path, "one.csv", "sentence,topics\ngoal,sports\n"),
             "pairs_csv": _file(tmp_path, "pairs.csv", PAIRS_CSV), "dev_csv": _file(tmp_path, "dev.csv", NAN_SCORES_CSV)}
    argv = [a.format(checkpoint=tiny_checkpoint, tmp=tmp_path, **paths) for a in argv + FINETUNE]
    result = run_tool("finetune", *argv, timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, *fragments)
    assert not os.path.exists(tmp_path / "run" / "checkpoints"), "refused after training started"


def test_export_refuses_a_saved_label_with_a_newline_in_one_line(tiny_checkpoint, tmp_path):
    """A model saved before the rule, carrying "pos\\nitive": export refuses it in one line (MediaPipe's
    own check raised a RuntimeError traceback: `num_classes == GetLabelMap(cc).size() (2 vs. 3)`)."""
    import keras_bert

    encoder = keras_bert.load_checkpoint(tiny_checkpoint, model="encoder")
    model = str(tmp_path / "model.keras")
    keras_bert.build_classifier(encoder, 2, task_config={"labels": ["neg", "pos\nitive"]}).save(model)
    result = run_tool("export", model, "--formats", "mediapipe", "--base_dir", tmp_path / "out", timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert_one_line_error(result.stderr, "'pos\\nitive'", "control character", "model.keras")
