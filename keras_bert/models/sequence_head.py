"""SequenceHead: dropout + dense on the pooled `[CLS]` output (classification, regression, multi-label)."""

import keras

from keras_bert.models.task_head import TaskHead


@keras.saving.register_keras_serializable(package="keras_bert")
class SequenceHead(TaskHead):
    """One vector of logits per sequence: Google's run_classifier.py head (`output_weights`,
    `output_bias`), Hugging Face's `BertForSequenceClassification` (pooler, dropout, `classifier`).

    Args: see `TaskHead`.

    Example:
        >>> SequenceHead(2, dropout_rate=0.1)(keras.ops.ones((4, 16))).shape
        (4, 2)
    """

    HF_ARCHITECTURE = "BertForSequenceClassification"
    HF_TASKS = (("single_label_classification", "classification"),
                ("single_label_classification", "pair_classification"),
                ("regression", "regression"), ("multi_label_classification", "multi_label"))
    MODEL_NAME = "bert_classifier"
    NAME = "classifier"

    @classmethod
    def hf_task(cls, hf_config, config_file):
        problem_type = hf_config.get("problem_type")
        if problem_type is None:  # as transformers decides it: one output is a regression
            labels = hf_config.get("id2label") or {}
            count = len(labels) or int(hf_config.get("num_labels") or 2)
            problem_type = "regression" if count == 1 else "single_label_classification"
        kinds = sorted({kind for kind, _ in cls.HF_TASKS})
        if problem_type not in kinds:
            raise ValueError(f"{config_file}: problem_type {problem_type!r} is not one of {kinds}; "
                             "fix the config.json.")
        task = next(task for kind, task in cls.HF_TASKS if kind == problem_type)
        return task, problem_type != "regression"
