"""TASKS, the fine-tuning tasks by name, and `serving_for`: the serving class of a model, by what it is."""

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


def serving_for(model):
    """The serving class of `model`, as the model says itself: its class (encoder, pretrainer) or its task
    (`BertTaskModel.task`, an entry of `TASKS`: the task's `serving`). Nothing is guessed from shapes."""
    # pylint: disable=import-outside-toplevel
    from keras_bert.models import BertPretrainer
    from keras_bert.models.families import ENCODER_CLASSES
    from keras_bert.tasks.encoder_serving import EncoderServing
    from keras_bert.tasks.masked_lm_serving import MaskedLMServing

    for model_class, serving in ((BertPretrainer, MaskedLMServing), (ENCODER_CLASSES, EncoderServing)):
        if isinstance(model, model_class):
            return serving
    task = getattr(model, "task", None)
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
