"""The run folder's identity: `run_config.json` names what trained there; a foreign folder is refused."""

import json
import os

from keras_bert.errors import make_dir
from keras_bert.training.array_checkpoint_manager import checkpoint_paths

RUN_CONFIG = "run_config.json"


def _flat(identity, prefix=""):
    flat = {}
    for key, value in identity.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = value
    return flat


def _read_run_config(path):
    """`(stored dict, None)`, or `(None, what is wrong)` for a file keras_bert did not write."""
    try:
        with open(path, encoding="utf-8") as f:
            stored = json.load(f)
    except (ValueError, UnicodeDecodeError) as error:  # json.JSONDecodeError is a ValueError
        return None, f"is not valid JSON ({error})"
    if not isinstance(stored, dict):
        return None, f"holds a {type(stored).__name__}, not the object keras_bert writes"
    for key in ("identity", "settings"):
        if not isinstance(stored.get(key, {}), dict):
            return None, f'has an "{key}" that is not an object'
    return stored, None


class RunFolder:
    """A training run's folder: `checkpoints/` and `run_config.json` (identity and settings).

    The identity is what a resumed run must share with the one that wrote the checkpoints
    (the model's config or shapes, the task and its data); a folder whose identity differs is
    refused, and so is one with checkpoints but no `run_config.json` (a folder without
    checkpoints is taken over). Settings (learning
    rate, steps, ...) may change between a run and its resumption; a note lists the changes.

    Args:
        path: the folder (created if needed).
        identity: JSON-able dict; nested dicts are compared key by key.
        settings: JSON-able dict of the run's other settings.
        what: how the refusal names the run ("model", "fine-tuning run").

    Example:
        >>> folder = RunFolder("runs/tiny", {"hidden_size": 128}, {"learning_rate": 1e-4})
        >>> folder.check()   # raises ValueError for another model's folder
        >>> folder.write()   # on the chief, once the checkpoint is restored
    """

    def __init__(self, path, identity, settings, what="model"):
        self.path = os.fspath(path)
        self.identity = json.loads(json.dumps(identity, default=str))
        self.settings = json.loads(json.dumps(settings, default=str))
        self.what = what
        self.checkpoint_dir = os.path.join(self.path, "checkpoints")
        self.config_path = os.path.join(self.path, RUN_CONFIG)
        self.changed = {}  # setting -> (stored, new), filled by check()

    def check(self):
        """Raises ValueError if the folder belongs to another run; prints changed settings."""
        make_dir(self.path, "output_dir (--output_dir)")
        # The `checkpoint` index both backends' managers write (TensorFlow's files, JAX's .npz).
        has_checkpoints = bool(checkpoint_paths(self.checkpoint_dir))
        if not has_checkpoints:
            return  # nothing to mix up: a new run, or one killed before its first checkpoint
        if not os.path.exists(self.config_path):
            raise ValueError(
                f"{self.checkpoint_dir} holds checkpoints but {self.config_path} is missing, so "
                f"it cannot be checked that they belong to this {self.what}. Pass a new "
                "--output_dir or delete the folder.")
        stored, problem = _read_run_config(self.config_path)
        if problem:
            raise ValueError(
                f"{self.config_path} {problem}, so it cannot be checked that the checkpoints in "
                f"{self.checkpoint_dir} belong to this {self.what}. Pass a new --output_dir or delete the folder.")
        old, new = _flat(stored.get("identity", {})), _flat(self.identity)
        if old != new:
            diff = ", ".join(f"{k}: {old.get(k)!r} there vs {new.get(k)!r} now"
                             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k))
            raise ValueError(
                f"{self.path} holds checkpoints of a different {self.what} ({diff}). Refusing to "
                "mix them: pass a new --output_dir, or delete that folder to start over.")
        self.changed = {k: (stored.get("settings", {}).get(k), v) for k, v in self.settings.items()
                        if stored.get("settings", {}).get(k) != v}

    def check_resumable(self, start_step, total_steps):
        """After the restore: refuses a finished run with changed settings (its results are not
        this command's); otherwise notes the settings that changed for the resumed run."""
        if not self.changed:
            return
        changes = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in self.changed.items())
        if start_step >= total_steps:
            raise ValueError(
                f"{self.path} holds a finished run made with other settings ({changes}); its "
                "results are not this command's. Pass a new --output_dir, or delete that folder "
                "to start fresh.")
        print(f"Note: resuming {self.path} with changed settings {changes}")

    def write(self):
        """Writes `run_config.json` through a temporary file and a rename, so a kill never leaves half a file."""
        tmp = self.config_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"identity": self.identity, "settings": self.settings}, f, indent=2, sort_keys=True, default=str)
            f.write("\n")
        os.replace(tmp, self.config_path)
