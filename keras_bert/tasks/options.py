"""TaskOptions: a task's options declared once, as a frozen dataclass.

One declaration per task is its flags (`tools/finetune.py TASK --help`), its `task_config` (what
the model carries), its run identity (`run_config.json`, for resume) and its help text. Values
are checked by their declared type with one rule: a value is taken when the type reads it
exactly ("64" and 8.0 as the int 64 and 8, "0.3" as the float 0.3, "on" / "off" as a bool);
anything else (2.5 for an int, "high" for a float, a string for a list) is refused in one line
naming the option, the value and the type expected.
"""

import dataclasses
import math

_BOOLS = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}


def option(default, help, *, model=True, identity=True, flag=True, choices=None, when=None):
    """A field of a `TaskOptions` class.

    Args:
        default: the value when not given (None: unset, decided later, e.g. from the training file).
        help: the flag's help text.
        model: carried by the model (its `task_config`).
        identity: part of the run's identity (a resumed run must share it).
        flag: a flag of `tools/finetune.py TASK` (and an option `finetune_task` takes).
        choices: the allowed values.
        when: the name of an option that must be set (not None) for this one to be carried and
            part of the identity (e.g. `aggregate` only with `doc_stride`).
    """
    return dataclasses.field(default=default, metadata={
        "help": help, "model": model, "identity": identity, "flag": flag, "choices": choices, "when": when})


@dataclasses.dataclass(frozen=True)
class TaskOptions:
    """The options every task has; a task's `Options` subclasses this and adds its own.

    Subclasses check their values in `check()` (after the types are) and may set derived values
    with `self._set(name, value)`.

    Example:
        >>> TaskOptions(seq_length="64").seq_length
        64
    """

    seq_length: int = option(128, "tokens per sequence", flag=False)
    batch_size: int = option(32, "examples per batch", model=False, flag=False)
    seed: int = option(0, "shuffle seed of the training data", model=False, identity=False, flag=False)

    def __post_init__(self):
        for field in dataclasses.fields(self):
            self._set(field.name, _typed(field, getattr(self, field.name)))
        self.check()

    def check(self):
        """Raises a one-line ValueError for values this task cannot use (types are checked already)."""

    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def replace(self, **changes):
        """A copy with `changes`, checked again."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def flags(cls):
        """`{name: (type or choices, default, help)}`: the task's own flags, the most derived class's
        first (then its bases', in their order); the run's `seq_length`, `batch_size`, `seed` aside."""
        fields = {field.name: field for field in dataclasses.fields(cls)}
        found = {}
        for klass in cls.__mro__:
            for name in getattr(klass, "__annotations__", {}):
                field = fields.get(name)
                if field is not None and field.metadata["flag"] and name not in found:
                    found[name] = (field.metadata["choices"] or field.type, field.default, field.metadata["help"])
        return found

    @classmethod
    def from_task_config(cls, task_config, where="task_config"):
        """The options a model carries (`model.task_config`), checked; `where` names the model in errors.

        Keys that are not options of this task are not read (a model may carry more, e.g. the answer
        options an export merged in); options the model does not carry take their defaults, so
        models saved before an option existed still load.
        """
        if not isinstance(task_config, dict):
            raise ValueError(f"{where}: task_config must be a JSON object of options, got {task_config!r}.")
        names = {field.name for field in dataclasses.fields(cls)}
        try:
            return cls(**{k: v for k, v in task_config.items() if k in names})
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    def _carried(self, key):
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)
                if field.metadata[key] and (field.metadata["when"] is None
                                            or getattr(self, field.metadata["when"]) is not None)}

    def task_config(self):
        """What the model carries (JSON-able): the options evaluation and serving read back."""
        return self._carried("model")

    def identity(self):
        """What a resumed run must share with the interrupted one (JSON-able)."""
        return self._carried("identity")


def check_option_names(options, task, known, tasks=()):
    """Refuses, in one line, an option of `options` not in `known` (task `task`'s option names),
    naming the other `tasks` (Task classes) that take it."""
    for name, value in options.items():
        if name not in known:
            owners = [t.name for t in tasks if name in t.options()]
            raise ValueError(
                f"Option {name} (--{name} {value}) does not apply to task {task!r}"
                + (f"; it is an option of {', '.join(owners)}" if owners else "")
                + f". {task}'s options: {', '.join(known) or 'none'}.")


def _typed(field, value):
    """`value` as `field.type` by the exact-reading rule (module docstring), or a one-line error."""
    name, kind, choices = field.name, field.type, field.metadata["choices"]
    if value is None and field.default is None:
        return None
    if kind is int:
        number = _exact_int(value)
        if number is None:
            raise ValueError(f"{name}={value!r} (--{name}) must be a whole number (int), e.g. {field.default}.")
        value = number
    elif kind is float:
        number = _float(value)
        if not math.isfinite(number):
            read = "" if isinstance(value, float) else f", read from {value!r}"
            raise ValueError(f"{name}={number} (--{name}) must be a finite number (float){read}.")
        value = number
    elif kind is bool:
        if not isinstance(value, bool):
            key = str(value).lower() if isinstance(value, (str, int)) else None
            if key not in _BOOLS:
                raise ValueError(f"{name}={value!r} (--{name}) must be on or off (a bool).")
            value = _BOOLS[key]
    elif kind is list:
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{name}={value!r} (--{name}) must be a list of names, e.g. ['neg', 'pos'].")
        value = list(value)
    elif kind is str and not isinstance(value, str):
        raise ValueError(f"{name}={value!r} (--{name}) must be a string, got {type(value).__name__}.")
    if choices is not None and value not in choices:
        raise ValueError(f"{name}={value!r} (--{name}) is not one of {choices}.")
    return value


def _exact_int(value):
    """`value` as an int when it is one exactly ("64", 64, 64.0), else None (bools are not numbers)."""
    if isinstance(value, bool):
        return None
    try:
        number = int(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if isinstance(value, str) or number == value else None


def _float(value):
    """`value` as a float (NaN when it is not a number: every float option refuses NaN)."""
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        return math.nan
