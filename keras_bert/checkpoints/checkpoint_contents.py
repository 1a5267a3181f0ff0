"""CheckpointContents: what a checkpoint reader hands to the loader."""

import dataclasses
import json
import os

from keras_bert.config import BertConfig
from keras_bert.text.text_config import TextConfig

# How to convert a PyTorch pickle (pytorch_model.bin), which keras_bert never unpickles, to safetensors in its folder.
PICKLE_SNIPPET = (
    "    import torch, safetensors.torch\n"
    "    state = torch.load('pytorch_model.bin', map_location='cpu', weights_only=True)\n"
    "    safetensors.torch.save_file({k: v.contiguous() for k, v in state.items()}, "
    "'model.safetensors', metadata={'format': 'pt'})")


@dataclasses.dataclass
class CheckpointContents:
    """The config and weights of one checkpoint, in Google's TF1 names and layouts.

    Every reader (Google, Hugging Face, keras_bert) converts its source into
    this one form, so shape checks, vocab checks and assignment happen once.

    Args:
        config: the checkpoint's `BertConfig`.
        weights: dict Google TF1 variable name -> float numpy array in Google's
            layout (Dense kernels `[in, out]`, `cls/seq_relationship/output_weights` `[2, H]`).
        source: what was read, for messages (e.g. "Hugging Face checkpoint /x/model.safetensors").
        source_names: dict Google name -> (name in the source, whether the
            source stores it transposed), for messages that name the source's variable.
        text_config: the checkpoint's text contract (`keras_bert.TextConfig`: vocab.txt,
            casing, ...), or None if it has no vocab.txt.
        config_file: the config file that was read, for messages.
        embedding: a sentence embedder's options (`pooling`, `normalize`, `seq_length`:
            `build_embedder`'s), from a sentence-transformers folder or an embedding `.keras` file,
            else None.
        task: the fine-tuning task of the checkpoint's head (a name in `keras_bert.tasks.TASKS`,
            as the source names it: keras_bert's saved entry, a head's `HF_TASK`), or None for an encoder,
            a pretrainer or a head whose source names no task (a `BertForSequenceClassification` folder
            transformers wrote: `keras_bert.tasks.task_of` names it from the head's problem_type).
        task_config: that task's options (`BertTaskModel.task_config`: labels, `seq_length`...).
        head_dropout_rate: the dropout before that head, where the source names it (None: the config's).
        head: the class of that head (a `keras_bert.models.TaskHead` subclass), None without one.
        head_config: that head's own config (`get_config()`, from a Keras model), None: sized from the weights.
        head_options: that head's options a Hugging Face config.json gives (`TaskHead.hf_options`), or None.
        model_name: the task model's name, where the source names it (None: the head's `MODEL_NAME`).
        unheld_head: the source's class whose head keras_bert does not hold (`ElectraForPreTraining`: the
            discriminator's), None otherwise; its encoder loads, a pretrainer is refused.

    Example:
        >>> contents = CheckpointContents(BertConfig(), {}, "example")
        >>> contents.text_config is None
        True
    """

    config: BertConfig
    weights: dict
    source: str
    source_names: dict = dataclasses.field(default_factory=dict)
    text_config: TextConfig = None
    config_file: str = None
    embedding: dict = None
    task: str = None
    task_config: dict = None
    head_dropout_rate: float = None
    head: type = None
    head_config: dict = None
    head_options: dict = None
    model_name: str = None
    unheld_head: str = None

    @property
    def vocab_file(self):
        """The checkpoint's vocab.txt, or None."""
        return self.text_config.vocab_file if self.text_config else None

    def source_name(self, google_name):
        """The variable's name in the source checkpoint."""
        return self.source_names.get(google_name, (google_name, False))[0]

    def source_shape(self, google_name, shape):
        """`shape` (Google layout) as the source stores it."""
        transposed = self.source_names.get(google_name, (google_name, False))[1]
        return tuple(reversed(shape)) if transposed else tuple(shape)


def check_text_length(contents):
    """`contents` whose text contract's `max_seq_length` fits the model's positions: a Hugging Face
    tokenizer's `model_max_length` (a tokenizer default, often 512 whatever the model) is capped to them;
    any other contract's (keras_bert's text_config.json) beyond them is one line naming the file."""
    text_config, limit = contents.text_config, contents.config.max_sequence_length  # RoBERTa's 514 rows: 512
    if text_config is None or not text_config.max_seq_length or not limit or text_config.max_seq_length <= limit:
        return contents
    if str(text_config.source).endswith(("tokenizer_config.json", "tokenizer.json")):
        contents.text_config = text_config.replace(max_seq_length=limit)
        return contents
    raise ValueError(f"{text_config.source or contents.source}: max_seq_length is {text_config.max_seq_length}, "
                     f"more than the model's {limit} positions ({contents.source}); "
                     f"set it to {limit} or less.")


def write_json(path, content, sort_keys=True):
    """Writes a checkpoint's JSON file: indented, a final newline, its folder created."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=2, sort_keys=sort_keys)
        f.write("\n")
