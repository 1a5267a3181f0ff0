"""keras_bert.checkpoints: load and save Google TF1, Hugging Face and keras_bert checkpoints.

Lazy (module `__getattr__`): `checkpoint_formats`, the table of formats a tool lists, imports no TensorFlow.
"""

from keras_bert.lazy import lazy_exports

_EXPORTS = {
    "keras_bert.checkpoints.checkpoint_contents": ("CheckpointContents",),
    "keras_bert.checkpoints.checkpoint_formats": ("FORMATS",),
    "keras_bert.checkpoints.hub_handle": ("resolve",),
    "keras_bert.checkpoints.keras_checkpoint": ("load_keras_file",),
    "keras_bert.checkpoints.loading": ("MODELS", "detect_format", "load_checkpoint", "model_from_contents",
                                       "read_checkpoint"),
    "keras_bert.checkpoints.saving": ("save_checkpoint",),
    "keras_bert.checkpoints.transformers_parity": ("compare_with_transformers",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
