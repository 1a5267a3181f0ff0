"""TaskOptions: one typed declaration per task is its flags, its task_config, its run identity and its help."""

import dataclasses

import pytest

from keras_bert.tasks import TASKS
from keras_bert.tasks.options import TaskOptions, option


@dataclasses.dataclass(frozen=True)
class ToyOptions(TaskOptions):
    words: int = option(3, "words per example")
    ratio: float = option(0.5, "a share")
    lower: bool = option(None, "lowercase (default: the checkpoint's)")
    names: list = option(None, "label names")
    column: str = option("text", "column", choices=("text", "title"))
    stride: int = option(None, "a stride", model=False)
    mode: str = option("mean", "with stride", when="stride")


@pytest.mark.parametrize("given, read", [
    ({"words": "64"}, {"words": 64}), ({"words": 8.0}, {"words": 8}), ({"ratio": "0.3"}, {"ratio": 0.3}),
    ({"ratio": 1}, {"ratio": 1.0}), ({"lower": "on"}, {"lower": True}), ({"lower": "False"}, {"lower": False}),
    ({"names": ("a", "b")}, {"names": ["a", "b"]}), ({"lower": None}, {"lower": None}),
])
def test_a_value_is_taken_when_its_type_reads_it_exactly(given, read):
    options = ToyOptions(**given)
    assert {name: getattr(options, name) for name in read} == read
    assert all(type(getattr(options, k)) is type(v) for k, v in read.items())


@pytest.mark.parametrize("given, message", [
    ({"words": 2.5}, "words=2.5 (--words) must be a whole number (int), e.g. 3."),
    ({"words": "six"}, "words='six' (--words) must be a whole number (int)"),
    ({"words": True}, "words=True (--words) must be a whole number"),
    ({"words": None}, "words=None (--words) must be a whole number"),
    ({"ratio": "high"}, "ratio=nan (--ratio) must be a finite number (float), read from 'high'."),
    ({"ratio": float("inf")}, "ratio=inf (--ratio) must be a finite number (float)."),
    ({"lower": "maybe"}, "lower='maybe' (--lower) must be on or off (a bool)."),
    ({"lower": 2}, "lower=2 (--lower) must be on or off"),
    ({"names": "neg,pos"}, "names='neg,pos' (--names) must be a list of names"),
    ({"column": 3}, "column=3 (--column) must be a string, got int."),
    ({"column": "body"}, "column='body' (--column) is not one of ('text', 'title')."),
])
def test_anything_else_is_refused_in_one_line_naming_option_value_and_type(given, message):
    with pytest.raises(ValueError) as error:
        ToyOptions(**given)
    assert str(error.value) == message or str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_one_declaration_gives_flags_task_config_and_identity():
    assert ToyOptions.flags() == {"words": (int, 3, "words per example"), "ratio": (float, 0.5, "a share"),
                                  "lower": (bool, None, "lowercase (default: the checkpoint's)"),
                                  "names": (list, None, "label names"), "column": (("text", "title"), "text", "column"),
                                  "stride": (int, None, "a stride"), "mode": (str, "mean", "with stride")}
    options = ToyOptions(words=4)
    assert options.task_config() == {"seq_length": 128, "words": 4, "ratio": 0.5, "lower": None, "names": None,
                                     "column": "text"}  # no stride (model=False), no mode (when stride)
    assert options.identity() == dict(options.task_config(), batch_size=32, stride=None)
    assert options.replace(stride=2).identity()["mode"] == "mean"
    with pytest.raises(ValueError, match=r"words=0.5 \(--words\)"):
        options.replace(words=0.5)  # a copy is checked again


def test_a_model_task_config_is_read_through_the_options_type():
    options = ToyOptions.from_task_config({"words": "5", "ratio": 0.25, "export_only": 1})  # not an option: not read
    assert (options.words, options.ratio, options.column) == (5, 0.25, "text")  # missing: the default
    with pytest.raises(ValueError, match=r"^Model 'm': ratio=nan \(--ratio\) must be a finite number"):
        ToyOptions.from_task_config({"ratio": "0.3x"}, "Model 'm'")
    with pytest.raises(ValueError, match=r"^Model 'm': task_config must be a JSON object"):
        ToyOptions.from_task_config(["ratio"], "Model 'm'")


# The task_config each task's model_options() wrote before the options type, and the run identity
# (run_config.json) each run wrote: models saved then still load, their runs still resume.
SAVED = {
    "classification": ({"seq_length": 16, "labels": ["neg", "pos"], "text_a": "sentence", "label": "label"},
                       {"seq_length": 16, "batch_size": 32, "text_a": "sentence", "text_b": None, "label": "label",
                        "labels": ["neg", "pos"], "padding": "dynamic"}),
    "pair_classification": ({"seq_length": 16, "labels": [0, 1], "text_a": "a", "label": "y", "text_b": "b"},
                            {"seq_length": 16, "batch_size": 32, "text_a": "a", "text_b": "b", "label": "y",
                             "labels": [0, 1], "padding": "dynamic"}),
    "regression": ({"seq_length": 16, "text_a": "s", "text_b": None, "label": "score", "doc_stride": 8,
                    "aggregate": "max"},
                   {"seq_length": 16, "batch_size": 32, "text_a": "s", "text_b": None, "label": "score",
                    "doc_stride": 8, "aggregate": "max"}),
    "multi_label": ({"seq_length": 16, "labels": ["a", "b"], "text_a": "s", "text_b": None, "label": "topics",
                     "separator": "|", "threshold": 0.4},
                    {"seq_length": 16, "batch_size": 32, "text_a": "s", "text_b": None, "label": "topics",
                     "labels": ["a", "b"], "separator": "|", "threshold": 0.4}),
    "token_classification": ({"seq_length": 16, "labels": ["B-PER", "O"]},
                             {"seq_length": 16, "batch_size": 32, "labels": ["B-PER", "O"]}),
    "squad": ({"seq_length": 64, "doc_stride": 16, "max_query_length": 12, "max_answer_length": 30,
               "version_2_with_negative": False},
              {"seq_length": 64, "batch_size": 32, "doc_stride": 16, "max_query_length": 12,
               "max_answer_length": 30}),
    "embedding": ({"seq_length": 16, "text_a": "anchor", "text_b": "positive", "label": "score", "scale": 20.0,
                   "pooling": "mean", "normalize": True},
                  {"seq_length": 16, "batch_size": 32, "text_a": "anchor", "text_b": "positive", "pooling": "mean",
                   "normalize": True, "scale": 20.0}),
}


@pytest.mark.parametrize("task", sorted(SAVED))
def test_task_configs_and_run_identities_written_before_still_read_the_same(task):
    task_config, identity = SAVED[task]
    options = TASKS[task].Options.from_task_config(task_config)
    assert options.task_config() == task_config
    assert options.identity() == identity


def test_a_task_reads_its_options_as_attributes_and_changes_them_only_by_replace(tokenizer, tmp_path):
    path = tmp_path / "train.csv"
    path.write_text("sentence,label\ngood,pos\nbad,neg\n", encoding="utf-8")
    task = TASKS["classification"](tokenizer, "16", labels=None)
    assert (task.seq_length, task.labels, task.padding) == (16, None, "dynamic")
    with pytest.raises(ValueError, match="has no label vocabulary yet: pass labels= .*fit_options"):
        task.read(str(path), training=True)  # reading fits nothing
    assert task.fit_options(str(path)).labels == ["neg", "pos"] and task.labels == ["neg", "pos"]
    with pytest.raises(AttributeError, match="labels is an option: set task.options = task.options.replace"):
        task.labels = ["x"]
    with pytest.raises(ValueError, match="Option max_query_length .* does not apply to task 'classification'"):
        TASKS["classification"](tokenizer, max_query_length=3)
    with pytest.raises(ValueError, match="Task 'classification' needs its tokenizer"):
        TASKS["classification"](None, labels=["neg", "pos"])


def test_flag_defaults_come_from_the_options():
    assert TASKS["squad"].Options().seq_length == 384 and TASKS["classification"].Options().seq_length == 128
    assert TASKS["multi_label"].options()["threshold"] == (float, 0.5, TASKS["multi_label"].options()["threshold"][2])
