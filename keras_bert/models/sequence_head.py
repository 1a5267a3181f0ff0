"""SequenceHead: dropout + dense on the pooled `[CLS]` output (classification, regression, multi-label)."""

import keras

from keras_bert.models.task_head import TaskHead

# Hugging Face's config.json `problem_type` values a sequence head holds (its vocabulary, not keras_bert's task
# names: each task class declares its own, `Task.HF_PROBLEM_TYPE`, and keras_bert.tasks maps the two).
PROBLEM_TYPES = ("single_label_classification", "regression", "multi_label_classification")


def transformers_problem_type(num_outputs):
    """The problem_type transformers gives a sequence head whose config.json names none: one output is a
    regression, more are single-label classes (`BertForSequenceClassification`, its pipeline)."""
    return "regression" if num_outputs == 1 else "single_label_classification"


@keras.saving.register_keras_serializable(package="keras_bert")
class SequenceHead(TaskHead):
    """One vector of logits per sequence: Google's run_classifier.py head (`output_weights`,
    `output_bias`), Hugging Face's `BertForSequenceClassification` (pooler, dropout, `classifier`).

    Args:
        num_outputs, dropout_rate, initializer_range: see `TaskHead`.
        problem_type: Hugging Face's `problem_type` of the model's task (one of `PROBLEM_TYPES`), as the task
            declares it (`Task.HF_PROBLEM_TYPE`); None: the one transformers reads from a config.json without one
            (one output: "regression", more: "single_label_classification"), so a multi-label head declares its
            "multi_label_classification". The head always carries one (`problem_type`, saved in its config).

    Example:
        >>> SequenceHead(2, dropout_rate=0.1)(keras.ops.ones((4, 16))).shape
        (4, 2)
    """

    HF_ARCHITECTURE = "BertForSequenceClassification"
    MODEL_NAME = "bert_classifier"
    NAME = "classifier"

    def __init__(self, num_outputs, dropout_rate=None, initializer_range=0.02, problem_type=None, **kwargs):
        super().__init__(num_outputs, dropout_rate, initializer_range, **kwargs)
        if problem_type is not None and problem_type not in PROBLEM_TYPES:
            raise ValueError(f"{self.name}: problem_type must be one of {sorted(PROBLEM_TYPES)} or None, "
                             f"got {problem_type!r}.")
        self.problem_type = problem_type or transformers_problem_type(self.num_outputs)
        self._argument_names += ("problem_type",)

    @classmethod
    def hf_problem_type(cls, hf_config, config_file):
        """config.json's problem_type, else the one transformers decides (`transformers_problem_type`), or a
        one-line error naming `config_file` for a value that is none of `PROBLEM_TYPES`."""
        problem_type = hf_config.get("problem_type")
        if problem_type is None:
            labels = hf_config.get("id2label") or {}
            problem_type = transformers_problem_type(len(labels) or int(hf_config.get("num_labels") or 2))
        if problem_type not in PROBLEM_TYPES:
            raise ValueError(f"{config_file}: problem_type {problem_type!r} is not one of {sorted(PROBLEM_TYPES)}; "
                             "fix the config.json.")
        return problem_type

    @classmethod
    def hf_options(cls, hf_config):
        """config.json's problem_type (or transformers' reading of its outputs), kept by the head."""
        return {"problem_type": cls.hf_problem_type(hf_config, "config.json")}

    @classmethod
    def hf_task(cls, hf_config, config_file):
        """No task name (keras_bert.tasks names the task of a problem_type): a regression's one output has
        no label name."""
        problem_type = cls.hf_problem_type(hf_config, config_file)
        return cls.HF_TASK, problem_type != "regression"
