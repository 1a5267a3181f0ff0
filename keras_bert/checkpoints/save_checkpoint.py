"""save_checkpoint: any model holding a BertEncoder -> Google TF1, Hugging Face or keras_bert files."""

import os
import warnings

from keras_bert.checkpoints.google_checkpoint import write_google_checkpoint
from keras_bert.checkpoints.huggingface_checkpoint import write_huggingface_checkpoint
from keras_bert.checkpoints.keras_checkpoint import write_keras_checkpoint
from keras_bert.checkpoints.vocab_file import check_vocab
from keras_bert.checkpoints.weight_map import find_encoder, model_weights
from keras_bert.models.bert_encoder import BertEncoder
from keras_bert.models.bert_pretrainer import BertPretrainer

FORMATS = ("google", "huggingface", "keras")
_ALIASES = {"tf1": "google", "hf": "huggingface", "safetensors": "huggingface"}


def save_checkpoint(model, path, format="keras", vocab_file=None):
    """Writes the BERT inside `model` as a Google TF1, Hugging Face or keras_bert checkpoint.

    - "google": bert_config.json + bert_model.ckpt.{index,data-00000-of-00001}
      with Google's original variable names (readable by `tf.train.load_checkpoint`
      and Google's `modeling.py`).
    - "huggingface": config.json + model.safetensors with `bert.`-prefixed names,
      loadable by `transformers.BertModel` / `BertForPreTraining.from_pretrained`.
    - "keras": keras_bert_config.json + encoder/pretrainer.weights.h5; or, if
      `path` ends in ".keras", the whole model via `model.save` (task heads included).

    A `BertPretrainer` is written with its MLM and NSP heads. A task model
    (e.g. `build_classifier`) is written as its encoder; its own head is
    dropped with a warning (save it with `model.save("x.keras")` instead).

    Args:
        model: a `BertEncoder`, `BertPretrainer` or a model that nests one.
        path: output directory (or a `.keras` file for format "keras").
        format: "google", "huggingface" (alias "hf") or "keras".
        vocab_file: vocab.txt to copy along; defaults to the one the model was
            loaded with (`model.vocab_file`), if any.

    Returns:
        `path`.

    Example:
        >>> encoder = keras_bert.load_checkpoint(minilm_dir)  # doctest: +SKIP
        >>> keras_bert.save_checkpoint(encoder, "/tmp/minilm_tf1", format="google")  # doctest: +SKIP
    """
    format = _ALIASES.get(format, format)
    if format not in FORMATS:
        raise ValueError(f"Unknown checkpoint format {format!r}; expected one of {FORMATS} "
                         f"(or an alias {sorted(_ALIASES)}).")
    path = os.fspath(path)
    if format == "keras" and path.endswith(".keras"):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        model.save(path)
        return path
    encoder = find_encoder(model)
    target = model if isinstance(model, BertPretrainer) else encoder
    if not isinstance(model, (BertEncoder, BertPretrainer)):
        extra = [layer.name for layer in model.layers if layer is not encoder and layer.weights]
        if extra:
            warnings.warn(
                f"{model.name}: writing only its BERT encoder; the weights of {extra} are not part "
                f"of a {format} BERT checkpoint and are dropped. Use model.save('model.keras') to "
                "keep the whole model.", UserWarning, stacklevel=2)
    vocab_file = vocab_file or getattr(model, "vocab_file", None) or getattr(encoder, "vocab_file", None)
    if vocab_file:
        check_vocab(vocab_file, encoder.config.vocab_size, f"model {model.name!r}")
    if format == "keras":
        return write_keras_checkpoint(path, target, vocab_file)
    writer = write_google_checkpoint if format == "google" else write_huggingface_checkpoint
    return writer(path, encoder.config, model_weights(target), vocab_file)
