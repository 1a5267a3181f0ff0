"""keras_bert.export: SavedModel (TF Serving and TF Hub), TFLite and ONNX export, each verified against Keras.

Lazy (module `__getattr__`): `formats`, the table of export formats a tool lists, imports no TensorFlow.
"""

from keras_bert.lazy import lazy_exports

_EXPORTS = {
    "keras_bert.export.formats": ("ExportFormat", "ExportJob"),
    "keras_bert.export.exporter": ("FORMATS", "default_seq_length", "export_model", "find_text_config", "load_model",
                                   "parity_table"),
    "keras_bert.export.fill_mask_client": ("export_and_query_fill_mask", "fill_mask", "query_fill_mask"),
    "keras_bert.export.onnx": ("FUSED_OPS", "OnnxConversionError", "export_onnx", "fused_op_counts"),
    "keras_bert.export.onnx_rewrites": ("REWRITES", "rewrite_for_ort_fusion"),
    "keras_bert.export.saved_model": ("export_saved_model", "next_version"),
    "keras_bert.export.models_config": ("write_models_config",),
    "keras_bert.export.serving_module": ("ServingModule", "model_task", "serves_a_task"),
    "keras_bert.export.hub": ("HubEncoder", "HubPreprocessor", "export_tfhub"),
    "keras_bert.tasks.answer_signature": ("SquadOptions",),
    "keras_bert.export.tflite": ("export_tflite",),
    "keras_bert.export.verify": ("ExportReport", "ParityError", "ParityRow", "format_table"),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
