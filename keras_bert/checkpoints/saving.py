"""save_checkpoint: any model holding a BertEncoder -> Google TF1, Hugging Face, keras_bert or keras-hub files."""

import glob
import os
import shutil
import tempfile
import warnings

from keras_bert.choices import CHECKPOINT_FORMATS as FORMATS
from keras_bert.choices import CHECKPOINT_FORMAT_ALIASES as _ALIASES
from keras_bert.checkpoints.google_checkpoint import write_google_checkpoint
from keras_bert.checkpoints.huggingface_checkpoint import huggingface_task, write_huggingface_checkpoint
from keras_bert.checkpoints.keras_checkpoint import write_keras_checkpoint
from keras_bert.checkpoints.keras_hub_checkpoint import write_keras_hub_checkpoint
from keras_bert.checkpoints.sentence_transformers_checkpoint import FORMAT as ST_FORMAT
from keras_bert.checkpoints.sentence_transformers_checkpoint import write_sentence_transformers_checkpoint
from keras_bert.checkpoints.vocab_file import check_vocab, copy_vocab
from keras_bert.checkpoints.weight_map import model_weights
from keras_bert.errors import make_dir
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.families import ENCODER_CLASSES, family_of
from keras_bert.models.model_operations import find_encoder, task_head

# What any format's writer puts in a folder: an earlier checkpoint's files are removed before
# writing, so the folder never loads an old model (nor pairs the new one with an old vocab.txt).
CHECKPOINT_FILES = ("bert_config.json", "bert_model.ckpt.*", "checkpoint", "config.json",
                    "model.safetensors", "model.safetensors.index.json", "model-*-of-*.safetensors",
                    "keras_bert_config.json", "encoder.weights.h5", "pretrainer.weights.h5",
                    "vocab.txt", "text_config.json", "tokenizer_config.json", "special_tokens_map.json",
                    "tokenizer.json", "modules.json", "sentence_bert_config.json",
                    "config_sentence_transformers.json", "1_Pooling/config.json", "vocab.json", "merges.txt",
                    "sentencepiece.bpe.model", "model.weights.h5", "metadata.json", "assets/tokenizer/*")
# Written last into the folder: what makes a loader take it for a checkpoint.
_CONFIGS = ("config.json", "bert_config.json", "keras_bert_config.json")


def save_checkpoint(model, path, format="keras", vocab_file=None, text_config=None):
    """Writes the BERT inside `model` as a Google TF1, Hugging Face, keras_bert or keras-hub checkpoint.

    - "google": bert_config.json + bert_model.ckpt.{index,data-00000-of-00001}
      with Google's original variable names (readable by `tf.train.load_checkpoint`
      and Google's `modeling.py`).
    - "huggingface": config.json + model.safetensors with `bert.`-prefixed names,
      loadable by `transformers.BertModel` / `BertForPreTraining.from_pretrained`.
    - "keras": keras_bert_config.json + encoder/pretrainer.weights.h5; or, if
      `path` ends in ".keras", the whole model via `model.save` (task heads included).
    - "keras_hub": a keras-hub preset folder (config.json, model.weights.h5, tokenizer.json,
      assets/tokenizer/vocabulary.txt, metadata.json) that `keras_hub.models.BertBackbone`
      and `BertTokenizer.from_preset` load: the encoder only (keras-hub's BertBackbone has no
      pretraining heads). keras-hub computes the tanh GELU: an erf-GELU model is written with
      a warning naming the output difference. A RoBERTa / XLM-R model writes the family's
      `RobertaBackbone` / `XLMRobertaBackbone` and tokenizer (no pooler there: a warning).
    - "sentence_transformers" (alias "st"): a folder that `sentence_transformers.SentenceTransformer`
      loads: an embedding model (task "embedding") with its pooling, normalization and
      `seq_length` as `max_seq_length`, or a bare encoder with mean pooling (see
      `sentence_transformers_checkpoint.write_sentence_transformers_checkpoint`).
      An embedding model saved as "huggingface" is written so (the folder is a Hugging Face BERT
      folder too); in "google", "keras" and "keras_hub" its pooling is dropped with a warning.

    Written as exports are, staged: into a folder (or file) beside `path`, moved in when complete, so an
    interrupted save leaves nothing a loader takes. A folder that already holds a checkpoint (of any format,
    its tokenizer files included) is replaced cleanly: its checkpoint files (`CHECKPOINT_FILES`) are removed
    when the new one moves in; other files stay.

    A `BertPretrainer` is written with its MLM and NSP heads. A task model (`BertTaskModel`)
    in "huggingface" is written with its head as transformers' `BertForSequenceClassification`
    (classification, pair_classification, regression, multi_label: `id2label`/`label2id`,
    `problem_type`), `BertForTokenClassification` or `BertForQuestionAnswering` (squad), so
    `transformers.pipeline(..., model=path)` runs it and `load_checkpoint(path)` gives it back;
    a head no HF architecture holds is refused. In the other formats a task model is written
    as its encoder; its head is dropped with a warning (save it with `model.save("x.keras")`).

    The text contract is written along in the format's own files (see
    `keras_bert.TextConfig.save`): keras/google `vocab.txt` + `text_config.json`,
    huggingface `vocab.txt`, `tokenizer_config.json`, `special_tokens_map.json`,
    `tokenizer.json`; keras_hub its tokenizer.json (`lowercase`) and vocabulary asset; a
    `.keras` file holds it inside (the encoder's config, vocab.txt as its asset).

    Args:
        model: a `BertEncoder`, `BertPretrainer` or a model that nests one.
        path: output directory (or a `.keras` file for format "keras").
        format: "google", "huggingface" (alias "hf"), "keras" or "keras_hub".
        vocab_file: vocab.txt to copy along (replaces the contract's vocabulary);
            defaults to the one the model was loaded with.
        text_config: the `keras_bert.TextConfig` to write (e.g. `tokenizer.text_config`);
            defaults to the one the model was loaded with (`model.text_config`). Without
            one, only vocab.txt is written and loading it will guess the casing (with a warning).

    Returns:
        `path`.

    Example:
        >>> encoder = keras_bert.load_checkpoint(minilm_dir, model="encoder")  # doctest: +SKIP
        >>> keras_bert.save_checkpoint(encoder, "/tmp/minilm_tf1", format="google")  # doctest: +SKIP
    """
    format = _ALIASES.get(format, format)
    if format not in FORMATS + (ST_FORMAT,):
        raise ValueError(f"Unknown checkpoint format {format!r}; expected one of {FORMATS + (ST_FORMAT,)} "
                         f"(or an alias {sorted(_ALIASES)}).")
    path = os.fspath(path)
    if format == "google" and not hasattr(find_encoder(model).config, "to_google_dict"):  # ModernBERT
        raise ValueError(f"A {family_of(find_encoder(model).config).name} model has no Google TF1 BERT checkpoint "
                         "(bert_config.json describes BERT's layers only); save it as 'huggingface' or 'keras'.")
    # Staged as exports are: written beside `path`, moved in at the end; an interrupted save leaves nothing.
    if format == "keras" and path.endswith(".keras"):
        folder = make_dir(os.path.dirname(os.path.abspath(path)), "the checkpoint's folder")
        staged = os.path.join(folder, f".partial-{os.getpid()}-{os.path.basename(path)}")
        try:
            _write(model, staged, format, vocab_file, text_config)
            os.replace(staged, path)
        finally:
            if os.path.exists(staged):
                os.remove(staged)
        return path
    make_dir(path, "checkpoint path")
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(path))}.partial-",
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        _write(model, staging, format, vocab_file, text_config)
        _publish(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def _write(model, path, format, vocab_file, text_config):
    """save_checkpoint's writing, into a fresh `path` (a staging folder, or the staged `.keras` file)."""
    encoder = find_encoder(model)
    text_config = _text_config(model, encoder, vocab_file, text_config)
    embedder = isinstance(task_head(model), EmbedderHead)  # a sentence embedder: its pooling is saved too
    if format == "huggingface" and embedder:
        format = ST_FORMAT  # a Hugging Face folder plus modules.json and the pooling: loads back as the embedder
    if format == ST_FORMAT:  # a sentence embedder's folder (its pooling too), not a BERT checkpoint
        return write_sentence_transformers_checkpoint(path, model, text_config)
    if format == "keras" and path.endswith(".keras"):  # the file carries the contract: no side files
        if text_config is None and vocab_file:
            raise ValueError(f"vocab_file={vocab_file} without a text contract: a .keras file carries "
                             "the whole contract; pass text_config=tokenizer.text_config.")
        previous = encoder.text_config
        encoder.text_config = text_config
        try:
            model.save(path)
        finally:
            encoder.text_config = previous
        return path
    head = None  # (head, task, task_config) of a task model written with its head (HF)
    if format == "huggingface" and isinstance(model, BertTaskModel) and any(
            layer is not encoder and layer.weights for layer in model.layers):
        head = huggingface_task(model)  # before anything is removed: a head HF cannot hold is refused
    target = model if (isinstance(model, BertPretrainer) and format != "keras_hub") or head else encoder
    dropped = None  # what the format cannot hold: said once written (a format that refuses the model says only that)
    if not head and (not isinstance(model, ENCODER_CLASSES + (BertPretrainer,)) or target is not model):
        extra = [layer.name for layer in model.layers if layer is not encoder and layer.weights]
        if embedder and not extra:
            dropped = (
                f"{model.name}: writing only its BERT encoder; its pooling ({model.task_config.get('pooling')}, "
                f"normalize={model.task_config.get('normalize')}) has no place in a {format} BERT checkpoint and "
                "is dropped. Use format='st' (a sentence-transformers folder) or model.save('model.keras') to "
                "keep the embedder.")
        elif extra:
            dropped = (
                f"{model.name}: writing only its BERT encoder; the weights of {extra} are not part "
                f"of a {format} BERT checkpoint and are dropped. Use model.save('model.keras') to "
                "keep the whole model.")
    if format == "keras_hub":  # the contract goes into keras-hub's own tokenizer files
        write_keras_hub_checkpoint(path, encoder, text_config, vocab_file)
    elif format == "keras":
        write_keras_checkpoint(path, target)
    elif head:
        write_huggingface_checkpoint(path, encoder.config, model_weights(target), *head)
    else:
        writer = write_google_checkpoint if format == "google" else write_huggingface_checkpoint
        writer(path, encoder.config, model_weights(target))
    if dropped:
        warnings.warn(dropped, UserWarning, stacklevel=2)
    if format == "keras_hub":
        return path
    if text_config is not None:
        text_config.save(path, format=format)
    elif vocab_file:
        copy_vocab(vocab_file, path)
        warnings.warn(
            f"save_checkpoint: {path} gets vocab.txt but no text contract (casing, special "
            "tokens); pass text_config=tokenizer.text_config so that loaders need not guess.",
            UserWarning, stacklevel=2)
    return path


def _text_config(model, encoder, vocab_file, text_config):
    """The contract to write: the given one, else the model's; `vocab_file` replaces its vocab."""
    text_config = text_config or getattr(model, "text_config", None) or getattr(encoder, "text_config", None)
    vocab_file = vocab_file or (text_config.vocab_file if text_config else None)
    if vocab_file:  # a vocab.txt counts lines; a BPE / SentencePiece contract its tokenizer's tokens
        check_vocab(vocab_file, encoder.config.vocab_size, f"model {model.name!r}", text_config)
    if text_config and vocab_file:
        text_config = text_config.replace(vocab_file=vocab_file)
    return text_config


def _publish(staging, directory):
    """Moves a staged checkpoint into `directory`: an earlier checkpoint's files (`CHECKPOINT_FILES`: a RoBERTa's
    vocab.json + merges.txt under an XLM-R) go first, the config (what a loader takes for a checkpoint) last."""
    for pattern in sorted(CHECKPOINT_FILES, key=lambda name: name not in _CONFIGS):
        for old in glob.glob(os.path.join(glob.escape(directory), pattern)):
            if os.path.isfile(old):
                os.remove(old)
    staged = [os.path.relpath(os.path.join(root, name), staging)
              for root, _, names in os.walk(staging) for name in names]
    for name in sorted(staged, key=lambda name: name in _CONFIGS):
        os.makedirs(os.path.dirname(os.path.join(directory, name)), exist_ok=True)
        os.replace(os.path.join(staging, name), os.path.join(directory, name))
