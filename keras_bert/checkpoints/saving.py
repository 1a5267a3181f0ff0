"""save_checkpoint: any model holding a BertEncoder -> Google TF1, Hugging Face, keras_bert or keras-hub files."""

import glob
import os
import shutil
import tempfile
import warnings

from keras_bert.checkpoints.checkpoint_formats import CHECKPOINT_FILES, CONFIG_FILES, SaveJob, format_record
from keras_bert.checkpoints.vocab_file import check_vocab, copy_vocab
from keras_bert.errors import make_dir
from keras_bert.models.bert_pretrainer import BertPretrainer
from keras_bert.models.bert_task_model import BertTaskModel
from keras_bert.models.embedder_head import EmbedderHead
from keras_bert.models.model_operations import find_encoder, task_head


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
    record = format_record(format)  # its writer, files and what it holds (`checkpoint_formats.FORMAT_RECORDS`)
    path = os.fspath(path)
    if record.check is not None:
        record.check(find_encoder(model))
    # Staged as exports are: written beside `path`, moved in at the end; an interrupted save leaves nothing.
    if record.name == "keras" and path.endswith(".keras"):
        folder = make_dir(os.path.dirname(os.path.abspath(path)), "the checkpoint's folder")
        staged = os.path.join(folder, f".partial-{os.getpid()}-{os.path.basename(path)}")
        try:
            _write_keras_file(model, staged, vocab_file, text_config)
            os.replace(staged, path)
        finally:
            if os.path.exists(staged):
                os.remove(staged)
        return path
    make_dir(path, "checkpoint path")
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(path))}.partial-",
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        _write(model, staging, record, vocab_file, text_config)
        _publish(staging, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def _write_keras_file(model, path, vocab_file, text_config):
    """The whole model as a `.keras` file (`model.save`), carrying its text contract: no side files."""
    encoder = find_encoder(model)
    text_config = _text_config(model, encoder, vocab_file, text_config)
    if text_config is None and vocab_file:
        raise ValueError(f"vocab_file={vocab_file} without a text contract: a .keras file carries "
                         "the whole contract; pass text_config=tokenizer.text_config.")
    previous = encoder.text_config
    encoder.text_config = text_config
    try:
        model.save(path)
    finally:
        encoder.text_config = previous


def _write(model, path, record, vocab_file, text_config):
    """save_checkpoint's writing with `record`'s writer, into a fresh folder `path` (a staging folder)."""
    encoder = find_encoder(model)
    text_config = _text_config(model, encoder, vocab_file, text_config)
    if record.embedder_as and isinstance(task_head(model), EmbedderHead):  # a sentence embedder: its pooling too
        record = format_record(record.embedder_as)
    task_weights = isinstance(model, BertTaskModel) and any(
        layer is not encoder and layer.weights for layer in model.layers)
    target = model if isinstance(model, BertPretrainer) else encoder
    written = record.write(path, SaveJob(model, encoder, target, text_config, vocab_file, task_weights))
    dropped = _dropped(model, encoder, record.name) if written is not model else None
    if dropped:  # what the format cannot hold: said once written (a format that refuses the model says only that)
        warnings.warn(dropped, UserWarning, stacklevel=2)
    if record.own_text:
        return
    if text_config is not None:
        text_config.save(path, format=record.name)
    elif vocab_file:
        copy_vocab(vocab_file, path)
        warnings.warn(
            f"save_checkpoint: {path} gets vocab.txt but no text contract (casing, special "
            "tokens); pass text_config=tokenizer.text_config so that loaders need not guess.",
            UserWarning, stacklevel=2)


def _dropped(model, encoder, format):  # pylint: disable=redefined-builtin
    """What a `format` checkpoint of `model`'s BERT leaves out of `model`, in one line (None: nothing)."""
    extra = [layer.name for layer in model.layers if layer is not encoder and layer.weights]
    if isinstance(task_head(model), EmbedderHead) and not extra:
        return (f"{model.name}: writing only its BERT encoder; its pooling ({model.task_config.get('pooling')}, "
                f"normalize={model.task_config.get('normalize')}) has no place in a {format} BERT checkpoint and "
                "is dropped. Use format='st' (a sentence-transformers folder) or model.save('model.keras') to "
                "keep the embedder.")
    return (f"{model.name}: writing only its BERT encoder; the weights of {extra} are not part "
            f"of a {format} BERT checkpoint and are dropped. Use model.save('model.keras') to "
            "keep the whole model.") if extra else None


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
    for pattern in sorted(CHECKPOINT_FILES, key=lambda name: name not in CONFIG_FILES):
        for old in glob.glob(os.path.join(glob.escape(directory), pattern)):
            if os.path.isfile(old):
                os.remove(old)
    staged = [os.path.relpath(os.path.join(root, name), staging)
              for root, _, names in os.walk(staging) for name in names]
    for name in sorted(staged, key=lambda name: name in CONFIG_FILES):
        os.makedirs(os.path.dirname(os.path.join(directory, name)), exist_ok=True)
        os.replace(os.path.join(staging, name), os.path.join(directory, name))
