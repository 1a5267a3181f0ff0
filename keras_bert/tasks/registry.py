"""TASKS, the fine-tuning tasks by name; `task_of` and `serving_for`: a model's task and serving class, by what it is."""

from keras_bert.tasks.classification import ClassificationTask
from keras_bert.tasks.embedding import EmbeddingTask
from keras_bert.tasks.multi_label import MultiLabelTask
from keras_bert.tasks.multiple_choice import MultipleChoiceTask
from keras_bert.tasks.pair_classification import PairClassificationTask
from keras_bert.tasks.regression import RegressionTask
from keras_bert.tasks.squad import SquadTask
from keras_bert.tasks.token_classification import TokenClassificationTask

TASKS = {task.name: task for task in (ClassificationTask, PairClassificationTask,
                                      TokenClassificationTask, SquadTask,
                                      RegressionTask, MultiLabelTask, EmbeddingTask, MultipleChoiceTask)}


def task_of(model):
    """The task of `model`: its own name (`BertTaskModel.task`), else, for a head a folder transformers wrote
    (no keras_bert task in it), the first task in `TASKS` that declares the head's Hugging Face problem_type
    (`Task.HF_PROBLEM_TYPE`: single_label_classification loads as classification), else None. The task classes
    are the one place that maps tasks and problem types."""
    task = getattr(model, "task", None)
    problem_type = getattr(getattr(model, "head", None), "problem_type", None)
    if task is None and problem_type is not None:
        task = next((name for name, task_class in TASKS.items() if task_class.HF_PROBLEM_TYPE == problem_type), None)
    return task


def serving_for(model):
    """The serving class of `model`, as the model says itself: its class (encoder, pretrainer) or its task
    (`task_of`: `BertTaskModel.task` or its head's problem_type, an entry of `TASKS`: the task's `serving`).
    Nothing is guessed from shapes."""
    # pylint: disable=import-outside-toplevel
    from keras_bert.models import BertPretrainer
    from keras_bert.models.families import ENCODER_CLASSES
    from keras_bert.tasks.encoder_serving import EncoderServing
    from keras_bert.tasks.masked_lm_serving import MaskedLMServing

    for model_class, serving in ((BertPretrainer, MaskedLMServing), (ENCODER_CLASSES, EncoderServing)):
        if isinstance(model, model_class):
            return serving
    task = task_of(model)
    if task is None:
        raise ValueError(
            f"Model {getattr(model, 'name', model)!r} does not say what it is: export serves a keras_bert "
            "encoder, pretrainer or task model (a BertTaskModel with `task`, from build_classifier, "
            "build_token_classifier, build_span_labeler or tools/finetune.py).")
    if task not in TASKS:
        raise ValueError(f"The model's task {task!r} is not one of keras_bert's tasks {tuple(TASKS)}; "
                         f"if it is your own task, register its Task class first (TASKS[{task!r}] = YourTask); "
                         "else the model may be from a newer keras_bert.")
    if TASKS[task].serving is None:
        raise ValueError(f"Task {task!r} ({TASKS[task].__name__}) declares no serving class; set its "
                         "`serving` to a TaskServing subclass (keras_bert.tasks.serving) to export it.")
    return TASKS[task].serving
