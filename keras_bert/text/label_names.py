"""The one label-name rule (imports no TensorFlow): what a label may be, wherever it comes from (a data file,
--labels, a model).

A label name is its text without surrounding whitespace (the readers always stripped file cells;
`--labels` names now too). It must be non-empty and hold no control character (a line break, tab,
NUL, ...) or Unicode line/paragraph separator: labels travel as lines (MediaPipe's and TFLite's
`labels.txt`, CoNLL files, a CSV cell) and such a name would not come back as itself. A multi-label
name must not contain the task's separator (the CSV form could not write it). A vocabulary lists each
name once. Every check answers in one line naming where the name came from.
"""

import unicodedata


def label_name(value, where, separator=None):
    """`value` as a label name (`str`, stripped), or a one-line `ValueError` naming `where`.

    Args:
        value: the label as read (str, int, ...).
        where: where it came from, for the message, e.g. `"line 3 of 'train.csv'"` or `"--labels"`.
        separator: a multi-label task's separator, which a name must not contain.

    Example:
        >>> label_name(" pos ", "--labels")
        'pos'
    """
    name = str(value).strip()
    if not name:
        raise ValueError(f"{where}: label {value!r} is empty; every label needs a name.")
    bad = next((c for c in name if unicodedata.category(c) in ("Cc", "Zl", "Zp")), None)
    if bad is not None:
        raise ValueError(f"{where}: label {name!r} contains the control character {bad!r}; a label name "
                         "must be one line of visible text (it is written as a line of labels.txt).")
    if separator and separator in name:
        raise ValueError(f"{where}: label {name!r}: a label name must not contain the separator {separator!r} "
                         "(--separator), which joins an example's labels; list them separately or pass another "
                         "--separator.")
    return name


def label_vocabulary_names(labels, flag="labels= (--labels)", separator=None):
    """`labels` (a vocabulary the user or a model gives) as distinct label names, or a one-line error.

    A vocabulary with no names (`--labels` alone, `--labels ""`, `--labels ,`) is refused as such.

    Example:
        >>> label_vocabulary_names(["neg", "pos"])
        ['neg', 'pos']
    """
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise ValueError(f"{flag} is {labels!r}; expected a list of label names, e.g. --labels neg pos.")
    labels = list(labels)
    if not [name for name in labels if str(name).strip(" ,")]:
        raise ValueError(f"{flag} names no label ({labels!r}); pass the names separated by spaces "
                         "(--labels sports politics) or leave it out to take them from the training file.")
    names = [label_name(name, flag, separator) for name in labels]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{flag} lists a name twice ({', '.join(twice)}): {names}; every label must appear once.")
    return names
