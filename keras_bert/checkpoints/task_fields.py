"""The types of a Hugging Face task folder's config.json fields that choose and build its head."""


def check_task_fields(raw, config_file, task_key):
    """Refuses, in one line naming the config.json field whose type is wrong (a string `architectures` loaded a
    classifier folder as a bare encoder; the others failed with raw TypeErrors)."""
    architectures, saved = raw.get("architectures"), raw.get(task_key)
    if architectures is not None and not (isinstance(architectures, list)
                                          and all(isinstance(a, str) for a in architectures)):
        raise ValueError(f"{config_file}: architectures is {architectures!r}; expected a list of class names "
                         'such as ["BertForSequenceClassification"].')
    if saved is not None and not (isinstance(saved, dict) and isinstance(saved.get("task_config") or {}, dict)):
        raise ValueError(f"{config_file}: {task_key} is {saved!r}; expected an object "
                         '{"task": ..., "task_config": {...}} as keras_bert writes it.')
    num_labels, dropout = raw.get("num_labels"), raw.get("classifier_dropout")
    if num_labels is not None and (isinstance(num_labels, bool) or not isinstance(num_labels, int) or num_labels < 1):
        raise ValueError(f"{config_file}: num_labels is {num_labels!r}; expected a whole number >= 1.")
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                or not 0 <= dropout < 1):
        raise ValueError(f"{config_file}: classifier_dropout is {dropout!r}; expected a number in [0, 1) or null.")
