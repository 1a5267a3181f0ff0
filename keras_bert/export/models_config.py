"""TF Serving's model config (`savedmodels/models.config`), regenerated from the exported models on disk."""

import os
import re

HEADER = (
    "# TF Serving model config, written by keras_bert.export.write_models_config (tools/export.py).\n"
    "# Every savedmodels/<name>/ that holds a numeric version directory with a saved_model.pb.\n"
    "# Serve: see savedmodels/README.md.\n"
)


def exported_models(base_dir):
    """`{name: [versions]}` for every `<base_dir>/<name>/<version>/saved_model.pb`."""
    models = {}
    if not os.path.isdir(base_dir):
        return models
    for name in sorted(os.listdir(base_dir)):
        model_dir = os.path.join(base_dir, name)
        if not os.path.isdir(model_dir):
            continue
        versions = sorted(int(v) for v in os.listdir(model_dir)
                          if v.isdigit() and os.path.isfile(os.path.join(model_dir, v, "saved_model.pb")))
        if versions:
            models[name] = versions
    return models


def write_models_config(base_dir="savedmodels", root="/models"):
    """Rewrites `<base_dir>/models.config` to list exactly the models exported under `base_dir`.

    TF Serving serves the highest version of each model (its default version policy).

    Args:
        base_dir: the `savedmodels` folder.
        root: where the server sees `base_dir` (`/models` in the tensorflow/serving image,
            mounted with `-v $PWD/savedmodels:/models`).

    Returns:
        The path written.

    Example:
        >>> write_models_config("savedmodels")
        'savedmodels/models.config'
    """
    names = list(exported_models(base_dir))
    for name in names:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ValueError(
                f"Model directory name {name!r} in {base_dir} is not a valid TF Serving model name; "
                "use letters, digits, '_', '.' or '-'.")
    entries = "".join(  # the text-proto model_config_list
        "  config {\n"
        f'    name: "{name}"\n'
        f'    base_path: "{root.rstrip("/")}/{name}"\n'
        '    model_platform: "tensorflow"\n'
        "  }\n" for name in names)
    path = os.path.join(base_dir, "models.config")
    os.makedirs(base_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER + "model_config_list {\n" + entries + "}\n")
    return path


def read_model_names(path):
    """Model names listed in a models.config file."""
    with open(path, encoding="utf-8") as f:
        return re.findall(r'name:\s*"([^"]+)"', f.read())
