"""keras_bert: BERT for TensorFlow/Keras. Public API: explicit re-exports only.

`import keras_bert` registers the classes a saved keras_bert model names (layers, models, the
learning-rate schedule) with Keras, so `keras.saving.load_model("model.keras")` works after it in
a fresh process. That imports keras (and its backend) and keras_bert.models, .layers, .config and
.text.text_config, which import no TensorFlow themselves. Everything else is lazy (module
`__getattr__`): the text, data, training, tasks and export parts load TensorFlow when first used.

The command-line tools set `KERAS_BERT_LAZY_IMPORT=1` before importing keras_bert, so `--help`
and flag errors answer without loading Keras; keras_bert's own loaders import the models first.
"""

import importlib
import os

from keras_bert.lazy import lazy_exports

__version__ = "0.1.0"

# Public name -> the submodule that defines it.
_EXPORTS = {
    "keras_bert.checkpoints": ("load_checkpoint", "save_checkpoint"),
    "keras_bert.config": ("PRESETS", "BertConfig"),
    "keras_bert.layers": ("BertEmbeddings", "MaskedLMHead", "NextSentenceHead", "Pooler",
                          "TransformerEncoderBlock"),
    "keras_bert.models": ("BertEncoder", "BertPretrainer", "BertTaskModel", "build_classifier", "build_encoder",
                          "build_pretrainer", "build_span_labeler", "build_token_classifier"),
    "keras_bert.tasks": ("TASKS", "finetune_task"),
    "keras_bert.data": ("pretraining_dataset",),
    "keras_bert.text": ("MaskedLMMasker", "Preprocessor", "TextConfig", "Tokenizer", "build_vocab"),
    "keras_bert.training": ("LinearWarmup", "ResumableCheckpoint", "bert_schedule",
                            "create_optimizer", "get_strategy",
                            "pretraining_input", "run_finetuning", "run_pretraining",
                            "set_mixed_precision"),
    "keras_bert.export": ("export_model", "export_onnx", "export_saved_model", "export_tfhub",
                          "export_tflite", "fill_mask", "query_fill_mask"),
}
# Demo and reference helpers stay in their subpackages: the Shakespeare corpus in
# keras_bert.data, the torch-only `compare_with_transformers` in keras_bert.checkpoints.
# Subpackages reachable as attributes (`keras_bert.export` needs the "export" extra:
# onnx, tf2onnx, ai-edge-litert).
_SUBMODULES = ("checkpoints", "choices", "cli", "config", "data", "errors", "export", "layers", "models",
               "tasks", "text", "training")
# Modules whose import registers a class that a saved model's config names.
_SERIALIZABLES = ("keras_bert.models", "keras_bert.training.linear_warmup")
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)


def register_serializables():
    """Imports the modules that register keras_bert's Keras classes (idempotent)."""
    for module in _SERIALIZABLES:
        importlib.import_module(module)


if os.environ.get("KERAS_BERT_LAZY_IMPORT") != "1":
    register_serializables()
