"""Google's original TF1 BERT checkpoints: bert_config.json + bert_model.ckpt.{index,data-*}.

Read with `tf.train.load_checkpoint` (no TF1 graph needed) and written with
`tf.raw_ops.SaveV2`, which stores each tensor under the exact name given —
`tf.train.Checkpoint` would rewrite the names into its object-graph scheme,
which Google's `modeling.py` and `init_from_checkpoint` cannot read.
"""

import glob
import os

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents, write_json
from keras_bert.checkpoints.weight_map import is_training_state
from keras_bert.config import BertConfig
from keras_bert.text.text_config import find_text_config

CONFIG_NAME = "bert_config.json"
CKPT_NAME = "bert_model.ckpt"
_LAYOUT = ("a Google BERT checkpoint directory must contain bert_config.json, "
           "bert_model.ckpt.index and bert_model.ckpt.data-00000-of-00001 (vocab.txt optional)")


def find_checkpoint_prefix(directory):
    """The checkpoint prefix in `directory` (e.g. .../bert_model.ckpt), or None if there is none."""
    if os.path.exists(os.path.join(directory, CKPT_NAME + ".index")):
        return os.path.join(directory, CKPT_NAME)
    indexes = sorted(glob.glob(os.path.join(directory, "*.index")))
    if len(indexes) > 1:
        import tensorflow as tf

        latest = tf.train.latest_checkpoint(directory)
        if latest:
            return latest
        raise ValueError(
            f"{directory} holds several TF checkpoints {[os.path.basename(i) for i in indexes]} "
            "and no `checkpoint` file says which is current; pass the prefix itself, e.g. "
            f"{indexes[-1][:-len('.index')]}.")
    return indexes[0][:-len(".index")] if indexes else None


def read_google_checkpoint(path):
    """Reads a Google TF1 BERT checkpoint (a directory or a `.../bert_model.ckpt` prefix).

    Args:
        path: the checkpoint directory, or the checkpoint prefix inside it.

    Returns:
        A `CheckpointContents` (optimizer slots such as `adam_m` are skipped).

    Example:
        >>> contents = read_google_checkpoint("uncased_L-2_H-128_A-2")  # doctest: +SKIP
    """
    import tensorflow as tf

    directory = path if os.path.isdir(path) else os.path.dirname(path)
    prefix = find_checkpoint_prefix(path) if os.path.isdir(path) else path
    if prefix is None:
        raise FileNotFoundError(f"No bert_model.ckpt.index in {directory}; {_LAYOUT}.")
    if not os.path.exists(prefix + ".index"):
        raise FileNotFoundError(f"Checkpoint index {prefix}.index not found; {_LAYOUT}.")
    if not glob.glob(prefix + ".data-*"):
        raise FileNotFoundError(
            f"{prefix}.index exists but its data file {os.path.basename(prefix)}.data-00000-of-00001 "
            f"is missing from {directory}; {_LAYOUT}.")
    config_file = os.path.join(directory, CONFIG_NAME)
    if not os.path.exists(config_file):
        raise FileNotFoundError(f"{directory} has {os.path.basename(prefix)}.index but no {CONFIG_NAME}; {_LAYOUT}.")
    config = BertConfig.from_json(config_file)
    source = f"Google checkpoint {prefix}"
    try:
        reader = tf.train.load_checkpoint(prefix)
        names = [n for n in reader.get_variable_to_shape_map() if not is_training_state(n)]
        weights = {name: reader.get_tensor(name) for name in sorted(names)}
    except (tf.errors.OpError, ValueError, IndexError) as e:
        raise ValueError(
            f"{source} is corrupt or truncated and cannot be read ({type(e).__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''}). Download or save it again.") from e
    weights = {name: value.astype("float32") if value.dtype != "float32" else value
               for name, value in weights.items() if value.dtype.kind == "f" or value.dtype.name == "bfloat16"}
    return CheckpointContents(config=config, weights=weights, source=source,
                              text_config=find_text_config(directory), config_file=config_file)


def write_google_checkpoint(directory, config, weights):
    """Writes bert_config.json and bert_model.ckpt.{index,data-00000-of-00001}.

    The result is what Google released: `tf.train.load_checkpoint` and Google's
    `modeling.py` read it under the original variable names.

    Args:
        directory: output directory (created if needed).
        config: the `BertConfig`.
        weights: dict Google name -> float32 numpy array (see `model_weights`).

    Example:
        >>> write_google_checkpoint("/tmp/out", config, model_weights(encoder))  # doctest: +SKIP
    """
    import tensorflow as tf

    write_json(os.path.join(directory, CONFIG_NAME), config.to_google_dict())
    names = sorted(weights)
    prefix = os.path.join(directory, CKPT_NAME)
    for stale in glob.glob(prefix + ".data-*"):
        os.remove(stale)
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(weights[name], tf.float32) for name in names])
    # A `checkpoint` state file lets tf.train.load_checkpoint(directory) find the prefix too.
    with open(os.path.join(directory, "checkpoint"), "w", encoding="utf-8") as f:
        f.write(f'model_checkpoint_path: "{CKPT_NAME}"\nall_model_checkpoint_paths: "{CKPT_NAME}"\n')
    return directory
