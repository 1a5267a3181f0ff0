"""keras_bert.export: SavedModel (TF Serving and TF Hub), TFLite and ONNX export, each verified against Keras."""

from keras_bert.export.exporter import FORMATS, export_model, find_text_config, load_model, parity_table
from keras_bert.export.fill_mask import export_and_query_fill_mask, query_fill_mask
from keras_bert.export.onnx import OnnxConversionError, fused_op_counts, onnx
from keras_bert.export.saved_model import next_version, saved_model
from keras_bert.export.serving_config import write_models_config
from keras_bert.export.serving_module import ServingModule
from keras_bert.export.hub import HubEncoder, HubPreprocessor, tfhub
from keras_bert.export.tflite import tflite
from keras_bert.export.verify import ExportReport, ParityError, ParityRow, format_table
