"""keras_bert.export: SavedModel (TF Serving and TF Hub), TFLite and ONNX export, each verified against Keras."""

from keras_bert.export.formats import ExportFormat, ExportJob
from keras_bert.export.exporter import (FORMATS, default_seq_length, export_model, find_text_config, load_model,
                                       parity_table)
from keras_bert.export.fill_mask_client import export_and_query_fill_mask, fill_mask, query_fill_mask
from keras_bert.export.models_config import write_models_config
from keras_bert.export.onnx import FUSED_OPS, OnnxConversionError, export_onnx, fused_op_counts
from keras_bert.export.onnx_rewrites import REWRITES, rewrite_for_ort_fusion
from keras_bert.export.saved_model import export_saved_model, next_version
from keras_bert.export.serving_module import ServingModule, model_task, serves_a_task
from keras_bert.export.hub import HubEncoder, HubPreprocessor, export_tfhub
from keras_bert.tasks.answer_signature import SquadOptions
from keras_bert.export.tflite import export_tflite
from keras_bert.export.verify import ExportReport, ParityError, ParityRow, format_table
