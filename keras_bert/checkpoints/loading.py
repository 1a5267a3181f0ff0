"""load_checkpoint: a Google TF1, Hugging Face or keras_bert checkpoint -> BertEncoder / BertPretrainer."""

import os
import warnings

from keras_bert.choices import CHECKPOINT_MODELS as MODELS
from keras_bert.checkpoints import (google_checkpoint, hub_handle, huggingface_checkpoint, keras_checkpoint,
                                   keras_hub_checkpoint, sentence_transformers_checkpoint)
from keras_bert.checkpoints.checkpoint_contents import check_text_length
from keras_bert.checkpoints.checkpoint_formats import (RECORDS, SENTENCE_TRANSFORMERS, check_checkpoint_exists,
                                                       check_not_pickle)
from keras_bert.checkpoints.vocab_file import check_vocab
from keras_bert.checkpoints.weight_map import MLM, NSP, assign_weights
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.builders import build_embedder
from keras_bert.models.families import build_family_encoder

_FORMATS_HELP = (
    "Expected one of: (a) a Google TF1 checkpoint directory (bert_config.json, "
    "bert_model.ckpt.index, bert_model.ckpt.data-00000-of-00001, optional vocab.txt); "
    "(b) a Hugging Face BERT folder (config.json, model.safetensors, optional vocab.txt); "
    "(c) a directory written by keras_bert.save_checkpoint(..., format='keras') "
    "(keras_bert_config.json, encoder.weights.h5 or pretrainer.weights.h5) or a .keras file; "
    "(d) a keras-hub BertBackbone, RobertaBackbone or XLMRobertaBackbone preset (config.json, "
    "model.weights.h5, optional tokenizer.json); "
    "(e) a sentence-transformers folder (modules.json, a Hugging Face BERT, 1_Pooling/config.json); "
    "(f) a released checkpoint: hf://ORG/NAME[@REVISION], a kaggle:// keras-hub handle or a name such as "
    "bert_base_uncased or modernbert_base (keras_bert.checkpoints.hub_handle.RELEASES).")


def detect_format(path):
    """"google", "huggingface", "keras", "keras_hub" or "sentence_transformers" for a checkpoint path; raises a clear error otherwise."""
    path = os.fspath(path)
    check_checkpoint_exists(path)
    if not os.path.exists(path):  # a TF checkpoint prefix, e.g. .../bert_model.ckpt beside its .index
        return "google"
    if os.path.isfile(path):
        name = os.path.basename(path)
        if name.endswith(".keras"):
            return "keras"
        if name.endswith(".safetensors"):
            return "huggingface"
        if name.endswith(".index"):
            return "google"
        check_not_pickle(path)
        raise ValueError(f"Don't know how to read the file {path}. {_FORMATS_HELP}")
    files = set(os.listdir(path))
    if keras_checkpoint.CONFIG_NAME in files:
        return "keras"
    if {keras_hub_checkpoint.CONFIG_NAME, keras_hub_checkpoint.WEIGHTS_NAME} <= files:  # ours: encoder.weights.h5
        return "keras_hub"
    if sentence_transformers_checkpoint.MODULES_NAME in files:
        return SENTENCE_TRANSFORMERS
    if {huggingface_checkpoint.WEIGHTS_NAME, huggingface_checkpoint.INDEX_NAME} & files:
        return "huggingface"
    if google_checkpoint.CONFIG_NAME in files or any(f.endswith(".index") for f in files):
        return "google"
    if huggingface_checkpoint.CONFIG_NAME in files:
        return "huggingface"  # its reader explains what is missing (e.g. only pytorch_model.bin)
    raise ValueError(
        f"{path} is not a BERT checkpoint in a known format; it contains "
        f"{sorted(files)[:12] or 'no files'}. {_FORMATS_HELP}")


def load_checkpoint(path, model=None, dtype=None):
    """Loads a BERT checkpoint from Google, Hugging Face, keras_bert or keras-hub into a Keras model.

    The format is detected from the files. Every weight's shape is checked
    against the config, and vocab.txt (when present) against the embedding rows.
    The text contract (`keras_bert.TextConfig`: vocab.txt, casing, special tokens,
    see `TextConfig.from_dir`) is kept as `.text_config` on the returned model (and
    its encoder; saved with the model), so `save_checkpoint` writes it
    along and `model.text_config.tokenizer()` tokenizes as the model expects.

    Args:
        path: a Google TF1 checkpoint directory (or its `bert_model.ckpt` prefix),
            a Hugging Face BERT folder (or its `model.safetensors`), a directory
            written by `save_checkpoint(..., format="keras")`, a `.keras` file, or a keras-hub
            BertBackbone preset folder (read as `hidden_act="gelu_tanh"`, keras-hub's GELU; its
            text contract from the preset's tokenizer.json) or RobertaBackbone / XLMRobertaBackbone
            preset (the RoBERTa / XLM-R family), or a sentence-transformers folder
            (modules.json: its Transformer is read as a Hugging Face folder; its pooling,
            normalization and max_seq_length make the embedder it loads as), or a released checkpoint
            by name: `hf://ORG/NAME[@REVISION]`, a name in `hub_handle.RELEASES` such as
            "bert_base_uncased", or a keras-hub handle (fetched into the Hub cache; its text contract
            records `origin`, `hf://ORG/NAME@COMMIT`).
        model: None (the default: the checkpoint's task model where it holds a fine-tuned head,
            e.g. a Hugging Face `BertForSequenceClassification` / `BertForTokenClassification` /
            `BertForQuestionAnswering` folder or a fine-tuned `model.keras`: a `BertTaskModel` with
            its task and labels; an embedding `model.keras` or a
            sentence-transformers folder's sentence embedder, as for "embedding"; else a
            `BertEncoder`), "encoder" (returns a `BertEncoder`), "pretrainer" (a
            `BertPretrainer`; heads missing from the source are initialized
            fresh, with a warning) or "auto" (a pretrainer if the source has
            pretraining heads, else an encoder: what a converter wants; a task model or sentence
            embedder first, as for None; what tools/export.py loads) or "embedding" (a
            sentence embedder, task "embedding": a sentence-transformers folder's pooling and
            normalization; other checkpoints: mean pooling, normalized).
        dtype: optional dtype policy for the new model (e.g. "mixed_bfloat16").

    Returns:
        A `BertEncoder`, `BertPretrainer` or embedding `BertTaskModel` holding the checkpoint's weights.

    Example:
        >>> encoder = keras_bert.load_checkpoint(minilm_dir, model="encoder")  # doctest: +SKIP
        >>> encoder.config.hidden_size  # doctest: +SKIP
        384
        >>> keras_bert.load_checkpoint(minilm_dir).task  # a sentence-transformers folder  # doctest: +SKIP
        'embedding'
    """
    if model is not None and model not in MODELS:
        raise ValueError(f"model must be one of {MODELS} or None, got {model!r}.")
    return model_from_contents(read_checkpoint(path), model, dtype)


def read_checkpoint(path):
    """The config, weights (numpy) and text contract of a checkpoint, any format (`CheckpointContents`);
    `path` may name a released checkpoint (`hub_handle.resolve`: hf://ORG/NAME[@REVISION], a release name).

    What `load_checkpoint` builds its model from; read it once where the model must be built
    later (e.g. inside a distribution strategy's scope: `model_from_contents`).
    """
    path, origin = hub_handle.resolve(path)  # a released checkpoint by name: its folder in the Hub cache
    contents = RECORDS[detect_format(path)].read(path)  # the format's record reads it
    if origin and contents.text_config is not None:  # provenance, saved with the text contract
        contents.text_config = contents.text_config.replace(origin=origin)
    rows = contents.weights.get("bert/embeddings/word_embeddings")
    if contents.vocab_file and rows is not None:
        check_vocab(contents.vocab_file, rows.shape[0], contents.source, contents.text_config)
    return check_text_length(contents)  # a max_seq_length beyond the positions fails here, not at a long text


def model_from_contents(contents, model="encoder", dtype=None):
    """A `BertEncoder` / `BertPretrainer` / task model (see `load_checkpoint`'s `model`) holding `contents`."""
    if model is not None and model not in MODELS:
        raise ValueError(f"model must be one of {MODELS} or None, got {model!r}.")
    if model in (None, "auto") and contents.head:  # a fine-tuned head: the task model it was saved as
        return _task_model(contents, dtype)
    if model in (None, "auto") and contents.embedding:  # a sentence-transformers folder: its embedder
        model = "embedding"
    model = model or "encoder"
    has_heads = any(name.startswith((MLM, NSP)) for name in contents.weights)
    if model == "pretrainer" and contents.unheld_head:
        raise ValueError(f"{contents.source} is an {contents.unheld_head}, whose head keras_bert does not hold; "
                         "load its encoder with model='encoder' (the default) and fine-tune or pretrain from it.")
    if model == "auto":
        model = "pretrainer" if has_heads else "encoder"
    encoder = build_family_encoder(contents.config, dtype=dtype)
    if model == "embedding":
        return _embedder(encoder, contents)
    result = encoder if model == "encoder" else BertPretrainer(contents.config, encoder=encoder, dtype=dtype)
    if result is not encoder and not has_heads:
        warnings.warn(
            f"{contents.source} has no pretraining heads (masked LM, next sentence); "
            "the pretrainer's heads are freshly initialized.", UserWarning, stacklevel=2)
    assign_weights(result if has_heads else encoder, contents)  # warns itself if one of the heads is missing
    encoder.text_config = contents.text_config  # the pretrainer's is its encoder's
    return result


def _embedder(encoder, contents):
    """The sentence embedder (task "embedding") of `contents`: its sentence-transformers pooling, else mean."""
    options = dict(contents.embedding or {"pooling": "mean", "normalize": True})
    seq_length = options.pop("seq_length", None) or (contents.text_config.max_seq_length if contents.text_config
                                                     else None) or min(512, contents.config.max_sequence_length)
    assign_weights(encoder, contents)
    text_config = contents.text_config
    encoder.text_config = text_config.replace(max_seq_length=seq_length) if text_config else None
    return build_embedder(encoder, **options, task_config={"seq_length": seq_length})


def _task_model(contents, dtype):
    """The `BertTaskModel` of `contents.head` (its class, sized from its weights) holding the
    checkpoint's encoder and head, with its task and options."""
    encoder = build_family_encoder(contents.config, dtype=dtype)
    if contents.head_config is not None:  # a Keras model's head: from its own config
        head = contents.head.from_config(dict(contents.head_config, **({"dtype": dtype} if dtype else {})))
    else:  # a Hugging Face folder's: sized from its weights
        dropout = contents.head_dropout_rate
        if dropout is None:  # the encoder's (a family config without one, ModernBERT's: its heads' is 0)
            dropout = getattr(contents.config, "dropout_rate", 0.0)
        head = contents.head.from_weights(contents.weights, dropout, contents.config.initializer_range, dtype,
                                          **(contents.head_options or {}))
    model = BertTaskModel.from_head(encoder, head, contents.model_name, contents.task,
                                    dict(contents.task_config or {}))
    model.check_labels(contents.config_file or contents.source)  # the file's label names fit its head
    assign_weights(model, contents)
    encoder.text_config = contents.text_config
    return model
