"""SequenceHead: dropout + dense on the pooled `[CLS]` output (classification, regression, multi-label)."""

import keras

from keras_bert.choices import HF_PROBLEM_TYPES
from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class SequenceHead(TaskHead):
    """One vector of logits per sequence: Google's run_classifier.py head (`output_weights`,
    `output_bias`), Hugging Face's `BertForSequenceClassification` (pooler, dropout, `classifier`).

    Args:
        num_outputs, dropout_rate, initializer_range: see `TaskHead`.
        problem_type: Hugging Face's `problem_type` of the model's task ("single_label_classification",
            "regression", "multi_label_classification"), as the task declares it (`Task.HF_PROBLEM_TYPE`);
            None: the one `choices.HF_PROBLEM_TYPES` gives the model's task.

    Example:
        >>> SequenceHead(2, dropout_rate=0.1)(keras.ops.ones((4, 16))).shape
        (4, 2)
    """

    HF_ARCHITECTURE = "BertForSequenceClassification"
    MODEL_NAME = "bert_classifier"
    NAME = "classifier"

    def __init__(self, num_outputs, dropout_rate=None, initializer_range=0.02, problem_type=None, **kwargs):
        super().__init__(num_outputs, dropout_rate, initializer_range, **kwargs)
        kinds = sorted(set(HF_PROBLEM_TYPES.values()))
        if problem_type is not None and problem_type not in kinds:
            raise ValueError(f"{self.name}: problem_type must be one of {kinds} or None, got {problem_type!r}.")
        self.problem_type = problem_type
        self._argument_names += ("problem_type",)

    def problem_type_for(self, task):
        """config.json's problem_type: the head's own (its task declared it), else its task's in the table."""
        return self.problem_type or self.hf_problem_type(task)

    def carries(self, task):
        return self.problem_type_for(task) is not None

    @classmethod
    def hf_problem_type(cls, task):
        return HF_PROBLEM_TYPES.get(task)

    @classmethod
    def hf_options(cls, hf_config):
        """config.json's problem_type, so that the head keeps it for whatever task the folder names."""
        return {"problem_type": hf_config["problem_type"]} if hf_config.get("problem_type") else {}

    @classmethod
    def hf_task(cls, hf_config, config_file):
        problem_type = hf_config.get("problem_type")
        if problem_type is None:  # as transformers decides it: one output is a regression
            labels = hf_config.get("id2label") or {}
            count = len(labels) or int(hf_config.get("num_labels") or 2)
            problem_type = "regression" if count == 1 else "single_label_classification"
        kinds = sorted(set(HF_PROBLEM_TYPES.values()))
        if problem_type not in kinds:
            raise ValueError(f"{config_file}: problem_type {problem_type!r} is not one of {kinds}; "
                             "fix the config.json.")
        task = next(task for task, kind in HF_PROBLEM_TYPES.items() if kind == problem_type)
        return task, problem_type != "regression"
