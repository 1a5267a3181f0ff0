"""keras_bert.tasks: one module per fine-tuning task (options, reader, head, loss, metrics, post-processing).

Adding a task is one new module with a `Task` subclass, its `Options` (a `TaskOptions` dataclass:
flags, task_config, run identity and help in one declaration) and its serving class (a `TaskServing`,
`Task.serving`), listed in `TASKS` (tasks/registry.py).
"""

from keras_bert.tasks.classification import ClassificationTask, classification_metrics
from keras_bert.tasks.embedding import EmbeddingTask, retrieval_metrics
from keras_bert.tasks.finetune import finetune_task
from keras_bert.tasks.multi_label import MultiLabelTask, multi_label_metrics
from keras_bert.tasks.options import TaskOptions
from keras_bert.tasks.pair_classification import PairClassificationTask
from keras_bert.tasks.regression import RegressionTask, regression_metrics
from keras_bert.tasks.registry import TASKS, serving_for, task_of
from keras_bert.tasks.squad import SquadTask
from keras_bert.tasks.task import Task
from keras_bert.tasks.token_classification import (TokenClassificationTask, entity_metrics, entity_spans,
                                                   token_classification_metrics)
