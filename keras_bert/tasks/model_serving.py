"""serving_for: a model's serving object, chosen by the model's class (a task model: by its task)."""


def serving_for(model):
    """What serves `model`, as the model says itself: its class (encoder, pretrainer) or its task
    (`BertTaskModel.task`, an entry of `TASKS`). Nothing is guessed from shapes."""
    # pylint: disable=import-outside-toplevel
    from keras_bert.models import BertPretrainer
    from keras_bert.models.families import ENCODER_CLASSES
    from keras_bert.tasks.encoder_serving import EncoderServing
    from keras_bert.tasks.finetune import TASKS
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
    return TASKS[task]
